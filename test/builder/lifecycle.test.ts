import { describe, expect, it } from 'vitest'
import { makeBuilderState } from '../../src/builder/state.ts'
import { replayBuilderInputs, step } from '../../src/builder/step.ts'
import type { BuilderInput, BuilderState, LifecycleInput } from '../../src/builder/types.ts'
import { makeMessage } from '../../src/message/message.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const run = (inputs: ReadonlyArray<BuilderInput>, from: BuilderState = makeBuilderState()) => replayBuilderInputs(inputs)(deepFreeze(from))
const open = (...inputs: ReadonlyArray<BuilderInput>) => run([{ type: 'startAssistant' }, ...inputs])
const types = (events: ReadonlyArray<{ readonly type: string }>) => events.map((e) => e.type)

describe('startAssistant', () => {
  it('opens a message and emits messageStarted', () => {
    const { state, events } = run([{ type: 'startAssistant', model: 'gpt-5', provider: 'openai', at: '2026-01-02T03:04:05.000Z' }])
    expect(state.current).toEqual({
      id: 'm1',
      role: 'assistant',
      kind: 'normal',
      parts: [],
      model: 'gpt-5',
      provider: 'openai',
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:05.000Z',
    })
    expect(events).toEqual([{ type: 'messageStarted', message: state.current }])
  })

  it('takes a given id, and still advances the counter', () => {
    const { state } = run([{ type: 'startAssistant', id: 'resp_1' }])
    expect(state.current?.id).toBe('resp_1')
    expect(state.seq).toBe(2)
  })

  it('while a message is open: warns, finalizes the open one, then opens a new one', () => {
    const { state, events } = open({ type: 'appendContent', text: 'partial' }, { type: 'startAssistant' })
    expect(types(events)).toEqual(['messageStarted', 'messagePartAdded', 'warning', 'messageFinalized', 'messageStarted'])
    expect(state.history.map((m) => m.id)).toEqual(['m1'])
    expect(state.current?.id).toBe('m2')
  })
})

describe('streamed content and thinking', () => {
  it('merges chunks into the current text part, with part-added then part-updated events', () => {
    const { state, events } = open({ type: 'appendContent', text: 'Hel' }, { type: 'appendContent', text: 'lo' })
    expect(state.current?.parts).toEqual([{ type: 'text', text: 'Hello' }])
    expect(events.slice(1)).toEqual([
      { type: 'messagePartAdded', messageId: 'm1', index: 0, part: { type: 'text', text: 'Hel' } },
      { type: 'messagePartUpdated', messageId: 'm1', index: 0, part: { type: 'text', text: 'Hello' }, delta: 'lo' },
    ])
  })

  it('skips empty chunks: the very same state, no event', () => {
    const s = open({ type: 'appendContent', text: 'a' }).state
    for (const type of ['appendContent', 'appendThinking'] as const) {
      const r = step(s, { type, text: '' })
      expect(r.state).toBe(s)
      expect(r.events).toEqual([])
    }
  })

  it('keeps the streamed order of blocks: text after thinking is a new part, and back', () => {
    const { state } = open(
      { type: 'appendThinking', text: 'think ' },
      { type: 'appendThinking', text: 'more' },
      { type: 'appendContent', text: 'answer' },
      { type: 'appendThinking', text: 'again' },
    )
    expect(state.current?.parts).toEqual([
      { type: 'reasoning', text: 'think more' },
      { type: 'text', text: 'answer' },
      { type: 'reasoning', text: 'again' },
    ])
  })

  it('a signature closes the reasoning block it signs', () => {
    const { state, events } = open(
      { type: 'appendThinking', text: 'a' },
      { type: 'setThinkingSignature', signature: 'sig-1' },
      { type: 'appendThinking', text: 'b' },
    )
    expect(state.current?.parts).toEqual([
      { type: 'reasoning', text: 'a', signature: 'sig-1' },
      { type: 'reasoning', text: 'b' },
    ])
    expect(types(events)).toEqual(['messageStarted', 'messagePartAdded', 'messagePartUpdated', 'messagePartAdded'])
  })

  it('signs the reasoning part being streamed; otherwise adds a signed part of its own; warns outside the lifecycle', () => {
    const signed = open({ type: 'appendThinking', text: 'a' }, { type: 'setThinkingSignature', signature: 's' }).state
    expect(signed.current?.parts).toEqual([{ type: 'reasoning', text: 'a', signature: 's' }])
    // a signed part is closed: a second signature is a block of its own, never a re-signing
    const twice = step(signed, { type: 'setThinkingSignature', signature: 't' }).state
    expect(twice.current?.parts).toEqual([
      { type: 'reasoning', text: 'a', signature: 's' },
      { type: 'reasoning', text: '', signature: 't' },
    ])
    const afterRedacted = open(
      { type: 'appendThinking', text: 'a' },
      { type: 'addRedactedThinking', data: 'opaque' },
      { type: 'setThinkingSignature', signature: 's' },
    ).state
    expect(afterRedacted.current?.parts).toEqual([
      { type: 'reasoning', text: 'a' },
      { type: 'reasoning', text: 'opaque', redacted: true },
      { type: 'reasoning', text: '', signature: 's' },
    ])
    const afterText = open({ type: 'appendContent', text: 'x' }, { type: 'setThinkingSignature', signature: 's' }).state
    expect(afterText.current?.parts).toEqual([
      { type: 'text', text: 'x' },
      { type: 'reasoning', text: '', signature: 's' },
    ])
    const idle = makeBuilderState()
    const r = step(idle, { type: 'setThinkingSignature', signature: 's' })
    expect(r.state).toBe(idle)
    expect(types(r.events)).toEqual(['warning'])
  })

  it('adds redacted thinking as its own part; thinking after it starts a new part', () => {
    const { state } = open({ type: 'addRedactedThinking', data: 'enc' }, { type: 'appendThinking', text: 'x' })
    expect(state.current?.parts).toEqual([
      { type: 'reasoning', text: 'enc', redacted: true },
      { type: 'reasoning', text: 'x' },
    ])
  })
})

describe('tool calls', () => {
  it('streams arguments into a pending call and keeps the raw text', () => {
    const { state, events } = open(
      { type: 'addToolCall', id: 'c1', name: 'read' },
      { type: 'appendToolCallArguments', id: 'c1', fragment: '{"path":' },
      { type: 'appendToolCallArguments', id: 'c1', fragment: ' "a.ts"}' },
    )
    expect(state.current?.parts).toEqual([{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{"path": "a.ts"}', status: 'pending' }])
    expect(events.at(-1)).toMatchObject({ type: 'messagePartUpdated', index: 0, delta: ' "a.ts"}' })
  })

  it('addToolCall with a known id updates that call in place (seed 004 AddToolCall)', () => {
    const { state, events } = open(
      { type: 'addToolCall', id: 'c1', name: 'read', arguments: '{"pa' },
      { type: 'addToolCall', id: 'c1', name: 'read', arguments: '{"path":"x"}' },
    )
    expect(state.current?.parts).toEqual([{ type: 'tool_call', id: 'c1', name: 'read', arguments: '{"path":"x"}', status: 'pending' }])
    expect(types(events)).toEqual(['messageStarted', 'messagePartAdded', 'messagePartUpdated'])
  })

  it('goes pending → running → complete and records the result after the message', () => {
    const { state, events } = open(
      { type: 'appendContent', text: 'Reading.' },
      { type: 'addToolCall', id: 'c1', name: 'read', arguments: '{}' },
      { type: 'startToolCall', id: 'c1' },
      { type: 'completeToolCall', id: 'c1', result: 'file body' },
      { type: 'finalizeAssistant' },
    )
    expect(state.current).toBeUndefined()
    expect(state.history).toEqual([
      {
        id: 'm1',
        role: 'assistant',
        kind: 'normal',
        parts: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'c1', name: 'read', arguments: '{}', status: 'complete' },
        ],
      },
      { id: 'm2', role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: 'c1', name: 'read', content: 'file body', isError: false }] },
    ])
    expect(types(events)).toEqual([
      'messageStarted',
      'messagePartAdded',
      'messagePartAdded',
      'messagePartUpdated',
      'messagePartUpdated',
      'messageFinalized',
      'messageAdded',
    ])
    expect(events.at(-2)).toMatchObject({ type: 'messageFinalized', index: 0, text: 'Reading.' })
    expect(events.at(-1)).toMatchObject({ type: 'messageAdded', index: 1 })
  })

  it('an error makes the error state and an error result', () => {
    const { state } = open(
      { type: 'addToolCall', id: 'c1', name: 'bash', arguments: '{}' },
      { type: 'completeToolCall', id: 'c1', result: '', error: 'exit 1' },
      { type: 'finalizeAssistant' },
    )
    expect(state.history[0]?.parts[0]).toMatchObject({ status: 'error' })
    expect(state.history[1]?.parts[0]).toEqual({ type: 'tool_result', toolCallId: 'c1', name: 'bash', content: 'exit 1', isError: true })
  })

  it('works on a finalized message: updates it in place and inserts the result after its other results', () => {
    const { state, events } = open(
      { type: 'addToolCall', id: 'a', name: 'read', arguments: '{}' },
      { type: 'addToolCall', id: 'b', name: 'grep', arguments: '{}' },
      { type: 'finalizeAssistant' },
      { type: 'startToolCall', id: 'b' },
      { type: 'completeToolCall', id: 'b', result: 'B' },
      { type: 'completeToolCall', id: 'a', result: 'A' },
    )
    expect(state.history.map((m) => m.role)).toEqual(['assistant', 'tool', 'tool'])
    expect(state.history[0]?.parts.map((p) => (p.type === 'tool_call' ? p.status : ''))).toEqual(['complete', 'complete'])
    expect(state.history.slice(1).map((m) => (m.parts[0]?.type === 'tool_result' ? m.parts[0].content : ''))).toEqual(['B', 'A'])
    expect(types(events).slice(-5)).toEqual(['messageUpdated', 'messageUpdated', 'messageAdded', 'messageUpdated', 'messageAdded'])
  })

  it('records no second result for a call that has one', () => {
    const s = open({ type: 'addToolCall', id: 'c1', name: 'read', arguments: '{}' }, { type: 'finalizeAssistant' }).state
    const withResult = {
      ...s,
      history: [...s.history, makeMessage({ id: 'r', role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'c1', content: 'x', isError: false }] })],
    }
    const { state } = step(withResult, { type: 'completeToolCall', id: 'c1', result: 'again' })
    expect(state.history).toHaveLength(2)
    expect(state.history[0]?.parts[0]).toMatchObject({ status: 'complete' })
  })

  it('a call id reused by a later turn (as some providers do) gets its own result', () => {
    const turn: ReadonlyArray<BuilderInput> = [
      { type: 'startAssistant' },
      { type: 'addToolCall', id: 'call_0', name: 'ls', arguments: '{}' },
      { type: 'finalizeAssistant' },
      { type: 'completeToolCall', id: 'call_0', result: 'one' },
    ]
    const { state } = run([...turn, ...turn.slice(0, 3), { type: 'completeToolCall', id: 'call_0', result: 'two' }])
    expect(state.history.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant', 'tool'])
    expect(state.history[3]?.parts[0]).toMatchObject({ toolCallId: 'call_0', content: 'two' })
  })

  it('warns on an unknown id, on a finished call, and on arguments for a running call', () => {
    const s = open({ type: 'addToolCall', id: 'c1', name: 'read', arguments: '{}' }, { type: 'startToolCall', id: 'c1' }).state
    const bad: ReadonlyArray<LifecycleInput> = [
      { type: 'startToolCall', id: 'nope' },
      { type: 'completeToolCall', id: 'nope', result: '' },
      { type: 'appendToolCallArguments', id: 'nope', fragment: 'x' },
      { type: 'appendToolCallArguments', id: 'c1', fragment: 'x' },
    ]
    for (const input of bad) {
      const r = step(s, input)
      expect(r.state).toBe(s)
      expect(types(r.events)).toEqual(['warning'])
    }
    const done = step(s, { type: 'completeToolCall', id: 'c1', result: 'ok' }).state
    for (const input of [{ type: 'startToolCall', id: 'c1' }, { type: 'completeToolCall', id: 'c1', result: 'twice' }] as const) {
      const r = step(done, input)
      expect(r.state).toBe(done)
      expect(r.events[0]).toMatchObject({ type: 'warning', cause: input.type })
    }
    // starting a running call again is harmless
    expect(step(s, { type: 'startToolCall', id: 'c1' }).state).toBe(s)
  })

  it('gives a call whose arguments never arrived {} when finalized', () => {
    const { state } = open({ type: 'addToolCall', id: 'c1', name: 'now' }, { type: 'finalizeAssistant' })
    expect(state.history[0]?.parts[0]).toMatchObject({ arguments: '{}', status: 'pending' })
  })
})

describe('finish, setError and finalizeAssistant', () => {
  it('sets one finish part, replacing its reason', () => {
    const { state, events } = open({ type: 'finish', reason: 'max_tokens' }, { type: 'finish', reason: 'end_turn' })
    expect(state.current?.parts).toEqual([{ type: 'finish', reason: 'end_turn' }])
    expect(types(events)).toEqual(['messageStarted', 'messagePartAdded', 'messagePartUpdated'])
    expect(step(state, { type: 'finish', reason: 'end_turn' }).state).toBe(state)
  })

  it('setError marks the current message', () => {
    const { state, events } = open({ type: 'setError', error: 'stream reset' }, { type: 'finalizeAssistant' })
    expect(state.history[0]?.error).toBe('stream reset')
    expect(events[1]).toEqual({ type: 'messageErrored', messageId: 'm1', error: 'stream reset' })
  })

  it('commits the message with its tokens and emits messageFinalized with the merged text', () => {
    const { state, events } = open(
      { type: 'appendContent', text: 'a' },
      { type: 'appendThinking', text: 'hidden' },
      { type: 'appendContent', text: 'b' },
      { type: 'finalizeAssistant', tokens: { total: 12 }, at: '2026-01-01T00:00:00.000Z' },
    )
    expect(state.history[0]).toMatchObject({ tokens: { total: 12 }, updatedAt: '2026-01-01T00:00:00.000Z' })
    expect(events.at(-1)).toEqual({ type: 'messageFinalized', message: state.history[0], index: 0, text: 'ab' })
  })

  it('appends after the history there is', () => {
    const { state } = run([{ type: 'startAssistant' }, { type: 'finalizeAssistant' }], makeBuilderState({ systemPrompt: 'sys' }))
    expect(state.history.map((m) => m.role)).toEqual(['system', 'assistant'])
    expect(state.history[1]?.id).toBe('m2')
  })
})

describe('outside the lifecycle', () => {
  const needsCurrent: ReadonlyArray<LifecycleInput> = [
    { type: 'appendContent', text: 'x' },
    { type: 'appendThinking', text: 'x' },
    { type: 'setThinkingSignature', signature: 's' },
    { type: 'addRedactedThinking', data: 'd' },
    { type: 'addToolCall', id: 'c', name: 'n' },
    { type: 'appendToolCallArguments', id: 'c', fragment: '{' },
    { type: 'startToolCall', id: 'c' },
    { type: 'completeToolCall', id: 'c', result: 'r' },
    { type: 'finish', reason: 'end_turn' },
    { type: 'setError', error: 'e' },
    { type: 'finalizeAssistant' },
  ]
  it.each(needsCurrent)('$type is a no-op with a warning, never a crash', (input) => {
    const s = deepFreeze(makeBuilderState({ systemPrompt: 'sys' }))
    const r = step(s, input)
    expect(r.state).toBe(s)
    expect(r.events).toHaveLength(1)
    expect(r.events[0]).toMatchObject({ type: 'warning', cause: input.type })
  })
})
