import { describe, expect, it } from 'vitest'
import { applyBuilderEvent, replayBuilderEvents, replayBuilderInputs, step } from '../../src/builder/step.ts'
import { makeBuilderState } from '../../src/builder/state.ts'
import type { BuilderEvent } from '../../src/builder/types.ts'
import { textMessage } from '../../src/message/message.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const a = textMessage('user', 'a', { id: 'a' })
const b = textMessage('user', 'b', { id: 'b' })
const c = textMessage('user', 'c', { id: 'c' })

describe('step', () => {
  it('never changes the state it is given, and returns it when nothing happens', () => {
    const s = deepFreeze(makeBuilderState({ systemPrompt: 'sys' }))
    expect(step(s, { type: 'ejectSyntheticMessages' }).state).toBe(s)
    expect(() => step(s, { type: 'addUserMessage', text: 'hi' })).not.toThrow()
    expect(s.history).toHaveLength(1)
  })
})

describe('replayBuilderInputs', () => {
  it('collects the events of every step in order', () => {
    const { state, events } = replayBuilderInputs([{ type: 'addUserMessage', text: 'x' }, { type: 'clear' }])(makeBuilderState({ systemPrompt: 's' }))
    expect(events.map((e) => e.type)).toEqual(['messageAdded', 'historyChanged'])
    expect(state.history).toHaveLength(1)
  })
})

describe('applyBuilderEvent', () => {
  const h = deepFreeze([a, c])
  it('inserts added, injected and finalized messages at their index', () => {
    expect(applyBuilderEvent({ type: 'messageAdded', message: b, index: 1 })(h)).toEqual([a, b, c])
    expect(applyBuilderEvent({ type: 'syntheticInjected', message: b, index: 2 })(h)).toEqual([a, c, b])
    expect(applyBuilderEvent({ type: 'messageFinalized', message: b, index: 0, text: 'b' })(h)).toEqual([b, a, c])
  })
  it('replaces updated messages and swaps the history on historyChanged', () => {
    expect(applyBuilderEvent({ type: 'messageUpdated', message: b, index: 1 })(h)).toEqual([a, b])
    expect(applyBuilderEvent({ type: 'historyChanged', cause: 'clear', history: [b] })(h)).toEqual([b])
  })
  it('returns the very same history for streaming, warning and out-of-range events', () => {
    const same: ReadonlyArray<BuilderEvent> = [
      { type: 'messageStarted', message: b },
      { type: 'messagePartAdded', messageId: 'x', index: 0, part: { type: 'text', text: '' } },
      { type: 'messagePartUpdated', messageId: 'x', index: 0, part: { type: 'text', text: '' }, delta: '' },
      { type: 'messageErrored', messageId: 'x', error: 'e' },
      { type: 'toolResultsPruned', report: { prunedResults: 0, prunedArgs: 0, tokensBefore: 0, tokensAfter: 0 } },
      { type: 'warning', cause: 'appendContent', detail: 'no' },
      { type: 'messageUpdated', message: b, index: 5 },
    ]
    for (const e of same) expect(applyBuilderEvent(e)(h)).toBe(h)
    expect(replayBuilderEvents(same)(h)).toBe(h)
  })
})
