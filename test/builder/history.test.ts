import { describe, expect, it } from 'vitest'
import { makeBuilderState } from '../../src/builder/state.ts'
import { replayBuilderInputs, step } from '../../src/builder/step.ts'
import type { BuilderInput, BuilderState } from '../../src/builder/types.ts'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { image, reasoning, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const base = () => deepFreeze(makeBuilderState({ systemPrompt: 'sys', systemTokens: 3 }))
const run = (inputs: ReadonlyArray<BuilderInput>, from: BuilderState = base()) => replayBuilderInputs(inputs)(from)
const types = (events: ReadonlyArray<{ readonly type: string }>) => events.map((e) => e.type)
const restored = (...ms: Message[]) => run([{ type: 'restore', messages: deepFreeze(ms) }]).state

describe('makeBuilderState', () => {
  it('starts with the system prompt and its tokens', () => {
    expect(base().history).toEqual([{ id: 'm1', role: 'system', kind: 'normal', parts: [text('sys')], tokens: { total: 3 } }])
  })
  it('has no system message for an empty prompt', () => {
    expect(makeBuilderState().history).toEqual([])
  })
})

describe('adding messages', () => {
  it('addUserMessage appends a user message with images, a sender and the estimate, and emits messageAdded', () => {
    const png = image({ data: new Uint8Array([1, 2]), mediaType: 'image/png' })
    const { state, events } = run([{
      type: 'addUserMessage',
      text: 'Look',
      images: [png],
      sender: 'alice',
      estimatedTokens: 7,
      at: '2026-01-01T00:00:00.000Z',
    }])
    const m = {
      id: 'm2',
      role: 'user',
      kind: 'normal',
      sender: 'alice',
      parts: [text('Look'), png],
      tokens: { total: 7 },
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    }
    expect(state.history[1]).toEqual(m)
    expect(events).toEqual([{ type: 'messageAdded', message: m, index: 1 }])
  })

  it('an image-only user message has no empty text part; an estimate of 0 sets no tokens', () => {
    const png = image({ url: 'https://example.com/a.png' })
    const { state } = run([{ type: 'addUserMessage', text: '', images: [png], estimatedTokens: 0 }])
    expect(state.history[1]?.parts).toEqual([png])
    expect(state.history[1]?.tokens).toBeUndefined()
  })

  it('addAssistantMessage appends a complete message, and refuses another role with a warning', () => {
    const a = textMessage('assistant', 'done', { id: 'a1' })
    expect(run([{ type: 'addAssistantMessage', message: a }]).state.history[1]).toBe(a)
    const s = base()
    const r = step(s, { type: 'addAssistantMessage', message: textMessage('user', 'x') })
    expect(r.state).toBe(s)
    expect(types(r.events)).toEqual(['warning'])
  })

  it('addToolResult appends a tool message and finishes the call it answers', () => {
    const { state, events } = run([
      { type: 'startAssistant' },
      { type: 'addToolCall', id: 'c1', name: 'read', arguments: '{}' },
      { type: 'finalizeAssistant' },
      { type: 'addToolResult', toolName: 'read', toolCallId: 'c1', result: 'body', estimatedTokens: 5 },
    ])
    expect(state.history[1]?.parts[0]).toMatchObject({ status: 'complete' })
    expect(state.history[2]).toEqual({
      id: 'm3',
      role: 'tool',
      kind: 'normal',
      parts: [toolResult({ toolCallId: 'c1', name: 'read', content: 'body' })],
      tokens: { total: 5 },
    })
    expect(types(events).slice(-2)).toEqual(['messageUpdated', 'messageAdded'])
  })

  it('a result for a call of the open message waits to be committed right after it', () => {
    const { state } = run([
      { type: 'startAssistant' },
      { type: 'addToolCall', id: 'c1', name: 'read', arguments: '{}' },
      { type: 'addToolResult', toolName: 'read', toolCallId: 'c1', result: 'body' },
      { type: 'addUserMessage', text: 'meanwhile' },
      { type: 'finalizeAssistant' },
    ])
    expect(state.history.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool'])
  })

  it('a call has one result: a second one replaces the first in place', () => {
    const { state, events } = run([
      { type: 'startAssistant' },
      { type: 'addToolCall', id: 'c1', name: 'read', arguments: '{}' },
      { type: 'completeToolCall', id: 'c1', result: 'first' },
      { type: 'finalizeAssistant' },
      { type: 'addUserMessage', text: 'next' },
      { type: 'addToolResult', toolName: 'read', toolCallId: 'c1', result: 'second' },
    ])
    expect(state.history.map((m) => m.role)).toEqual(['system', 'assistant', 'tool', 'user'])
    expect(state.history[2]?.parts[0]).toMatchObject({ content: 'second' })
    expect(state.history[2]?.id).toBe('m3') // keeps the id of the result it replaces
    expect(events.at(-1)).toMatchObject({ type: 'messageUpdated', index: 2 })
  })

  it('addEphemeralToolResult makes an ephemeral error result and marks the call as an error', () => {
    const { state } = run([
      { type: 'startAssistant' },
      { type: 'addToolCall', id: 'c1', name: 'nope', arguments: '{}' },
      { type: 'finalizeAssistant' },
      { type: 'addEphemeralToolResult', toolName: 'nope', toolCallId: 'c1', result: 'tool not found' },
    ])
    expect(state.history[1]?.parts[0]).toMatchObject({ status: 'error' })
    expect(state.history[2]).toMatchObject({ kind: 'ephemeral', parts: [{ isError: true, content: 'tool not found' }] })
  })

  it('adds display, bookmark, metadata and synthetic messages', () => {
    const { state, events } = run([
      { type: 'addDisplayMessage', role: 'assistant', text: 'Switched to plan mode' },
      { type: 'addBookmark', label: 'Phase 2' },
      { type: 'addMetadata', data: { mode: 'plan' } },
      { type: 'injectMessage', role: 'user', text: 'Remember the tests.', estimatedTokens: 4 },
    ])
    expect(state.history.slice(1).map((m) => [m.role, m.kind])).toEqual([
      ['assistant', 'display'],
      ['user', 'bookmark'],
      ['user', 'metadata'],
      ['user', 'synthetic'],
    ])
    expect(state.history[3]).toMatchObject({ parts: [], metadata: { mode: 'plan' } })
    expect(state.history[4]?.tokens).toEqual({ total: 4 })
    expect(types(events)).toEqual(['messageAdded', 'messageAdded', 'messageAdded', 'syntheticInjected'])
  })
})

describe('updating', () => {
  const withThinking = () =>
    restored(
      textMessage('system', 'sys'),
      makeMessage({ id: 'a', role: 'assistant', parts: [reasoning('old', { signature: 's' }), text('answer'), reasoning('more')] }),
    )

  it('updateThinking rewrites the reasoning of a history message into one part', () => {
    const s = withThinking()
    const { state, events } = step(s, { type: 'updateThinking', index: 1, thinking: 'short' })
    expect(state.history[1]?.parts).toEqual([reasoning('short'), text('answer')])
    expect(events).toEqual([{ type: 'messageUpdated', index: 1, message: state.history[1] }])
    expect(state.history[0]).toBe(s.history[0])
  })

  it('updateThinking with empty text strips the reasoning; with none to strip it changes nothing', () => {
    const s = withThinking()
    const stripped = step(s, { type: 'updateThinking', index: 1, thinking: '' }).state
    expect(stripped.history[1]?.parts).toEqual([text('answer')])
    expect(step(stripped, { type: 'updateThinking', index: 1, thinking: '' }).state).toBe(stripped)
  })

  it('updateThinking adds reasoning first to a message without any, and warns on a bad index', () => {
    const s = withThinking()
    expect(step(s, { type: 'updateThinking', index: 0, thinking: 'x' }).state.history[0]?.parts).toEqual([reasoning('x'), text('sys')])
    for (const index of [-1, 2, 0.5]) {
      const r = step(s, { type: 'updateThinking', index, thinking: 'x' })
      expect(r.state).toBe(s)
      expect(types(r.events)).toEqual(['warning'])
    }
  })

  it('updateSystemPrompt replaces the system prompt and keeps the history', () => {
    const s = run([{ type: 'addUserMessage', text: 'hi' }]).state
    const { state, events } = step(s, { type: 'updateSystemPrompt', prompt: 'plan mode', estimatedTokens: 2 })
    expect(state.history.map((m) => m.id)).toEqual(['m1', 'm2'])
    expect(state.history[0]).toMatchObject({ parts: [text('plan mode')], tokens: { total: 2 } })
    expect(types(events)).toEqual(['messageUpdated'])
    expect(step(state, { type: 'updateSystemPrompt', prompt: 'plan mode', estimatedTokens: 2 }).state).toBe(state)
  })

  it('updateSystemPrompt drops a stale token count when given no estimate', () => {
    const { state } = step(base(), { type: 'updateSystemPrompt', prompt: 'other' })
    expect(state.history[0]?.tokens).toBeUndefined()
  })

  it('updateSystemPrompt prepends a system message when there is none', () => {
    const s = run([{ type: 'addUserMessage', text: 'hi' }], makeBuilderState()).state
    const { state, events } = step(s, { type: 'updateSystemPrompt', prompt: 'sys' })
    expect(state.history.map((m) => m.role)).toEqual(['system', 'user'])
    expect(events[0]).toMatchObject({ type: 'messageAdded', index: 0 })
  })
})

describe('bulk edits reuse the history core', () => {
  const history = () =>
    restored(
      textMessage('system', 'sys', { id: 's' }),
      textMessage('user', 'hi', { id: 'u1' }),
      textMessage('system', 'sys', { id: 's2' }),
      textMessage('user', 'Reminder', { id: 'r1', kind: 'synthetic' }),
      makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'x', arguments: '{}', status: 'error' })] }),
      makeMessage({ id: 't1', role: 'tool', kind: 'ephemeral', parts: [toolResult({ toolCallId: 'c1', content: 'denied', isError: true })] }),
      textMessage('user', 'Reminder', { id: 'r2', kind: 'synthetic' }),
      makeMessage({ id: 'a2', role: 'assistant', parts: [] }),
    )
  const ids = (s: BuilderState) => s.history.map((m) => m.id)

  it.each(
    [
      ['clear', { type: 'clear' }, ['s']],
      ['dropN', { type: 'dropN', n: 2 }, ['s', 'u1', 's2', 'r1', 'a1', 't1']],
      ['deduplicateSystemMessages', { type: 'deduplicateSystemMessages' }, ['s', 'u1', 'r1', 'a1', 't1', 'r2', 'a2']],
      ['ejectEphemeralMessages', { type: 'ejectEphemeralMessages' }, ['s', 'u1', 's2', 'r1', 'r2', 'a2']],
      ['ejectSyntheticMessages', { type: 'ejectSyntheticMessages' }, ['s', 'u1', 's2', 'a1', 't1', 'a2']],
      ['trimDuplicateSynthetics', { type: 'trimDuplicateSynthetics' }, ['s', 'u1', 's2', 'a1', 't1', 'r2', 'a2']],
      ['pruneEmptyAssistantMessages', { type: 'pruneEmptyAssistantMessages' }, ['s', 'u1', 's2', 'r1', 'a1', 't1', 'r2']],
    ] as const,
  )('%s', (_, input, expected) => {
    const s = history()
    const { state, events } = step(s, input)
    expect(ids(state)).toEqual(expected)
    expect(events).toEqual([{ type: 'historyChanged', cause: input.type, history: state.history }])
  })

  it('an edit that changes nothing returns the very same state and no event', () => {
    const s = restored(textMessage('system', 'sys'))
    for (const input of [{ type: 'clear' }, { type: 'dropN', n: 0 }, { type: 'ejectSyntheticMessages' }, { type: 'backfillToolTokens', delta: 10 }] as const) {
      const r = step(s, input)
      expect(r.state).toBe(s)
      expect(r.events).toEqual([])
    }
  })

  it('clear keeps nothing when the history does not start with a system prompt', () => {
    const s = restored(textMessage('user', 'a'), textMessage('assistant', 'b'))
    expect(step(s, { type: 'clear' }).state.history).toEqual([])
  })

  it('backfillToolTokens spreads a delta over the tool results since the last assistant message', () => {
    const s = restored(
      textMessage('system', 'sys'),
      makeMessage({
        role: 'assistant',
        parts: [toolCall({ id: 'a', name: 'x', arguments: '{}', status: 'complete' }), toolCall({ id: 'b', name: 'x', arguments: '{}', status: 'complete' })],
      }),
      makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'a', content: 'x'.repeat(30) })] }),
      makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'b', content: 'x'.repeat(10) })] }),
    )
    const { state } = step(s, { type: 'backfillToolTokens', delta: 100 })
    expect(state.history.slice(2).map((m) => m.tokens?.total)).toEqual([75, 25])
  })

  it('pruneToolResults prunes old results with the history core and reports what it freed', () => {
    const turn = (i: number) => [
      makeMessage({ id: `a${i}`, role: 'assistant', parts: [toolCall({ id: `c${i}`, name: 'read', arguments: '{}', status: 'complete' })] }),
      makeMessage({ id: `t${i}`, role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, name: 'read', content: 'x'.repeat(4000) })] }),
    ]
    const s = restored(textMessage('system', 'sys'), ...turn(1), ...turn(2), ...turn(3))
    const { state, events } = step(s, { type: 'pruneToolResults', protectTokens: 1500, minimumSavings: 0 })
    const contents = state.history.slice(1).flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.content.length] : [])))
    expect(contents[2]).toBe(4000) // the newest result is protected
    expect(contents[0]).toBeLessThan(200)
    expect(types(events)).toEqual(['toolResultsPruned', 'historyChanged'])
    const pruned = contents.filter((n) => n < 4000).length
    expect(pruned).toBeGreaterThanOrEqual(1)
    expect(events[0]).toMatchObject({ type: 'toolResultsPruned', report: { prunedResults: pruned } })
    // nothing left to prune: the very same state
    expect(step(state, { type: 'pruneToolResults', protectTokens: 1500, minimumSavings: 0 }).state).toBe(state)
  })

  it('rebuildAfterCompaction keeps the system prompt, adds the summary, keeps the preserved tail, and reports the archive', () => {
    const s = restored(
      textMessage('system', 'sys', { id: 's' }),
      textMessage('user', 'old question', { id: 'u1' }),
      textMessage('assistant', 'old answer', { id: 'a1' }),
      textMessage('user', 'recent', { id: 'u2' }),
    )
    const preserved = s.history.slice(3)
    const { state, events } = step(s, { type: 'rebuildAfterCompaction', summary: '## Goal\nship it', summaryTokens: 6, preserved })
    expect(state.history).toHaveLength(3)
    expect(state.history[0]).toBe(s.history[0])
    expect(state.history[1]).toMatchObject({ role: 'user', kind: 'normal', parts: [text('## Goal\nship it')], tokens: { total: 6 } })
    expect(state.history[2]).toBe(preserved[0])
    expect(events).toEqual([
      { type: 'historyCompacted', archive: [s.history[1], s.history[2]] },
      { type: 'historyChanged', cause: 'rebuildAfterCompaction', history: state.history },
    ])
  })

  it('restore replaces the history, discarding an open message with a warning', () => {
    const open = run([{ type: 'startAssistant' }, { type: 'appendContent', text: 'x' }]).state
    const ms = deepFreeze([textMessage('system', 'other')])
    const { state, events } = step(open, { type: 'restore', messages: ms })
    expect(state.history).toBe(ms)
    expect(state.current).toBeUndefined()
    expect(types(events)).toEqual(['warning', 'historyChanged'])
  })
})
