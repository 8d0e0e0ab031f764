import { describe, expect, it } from 'vitest'
import { createPruner } from '../../src/history/prune-incremental.ts'
import type { PrunerState } from '../../src/history/prune-state.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import { call, msg, result, txt } from './fixtures.ts'

/** Turn `t`: a user question, an assistant call, a tool result of about 1,000 tokens. */
const turn = (t: number): Message[] => [
  msg(`u${t}`, 'user', [txt(`question ${t}`)]),
  msg(`a${t}`, 'assistant', [txt('Reading.'), call(`c${t}`, 'read', JSON.stringify({ path: `f${t}.ts` }))]),
  msg(`t${t}`, 'tool', [result(`c${t}`, `${t}:`.padEnd(4000, 'x'), 'read')]),
]
const SYSTEM = msg('sys', 'system', [txt('Be careful.')])
/** The same history decoded again: new objects (and new ids) with the same content, as a request made later decodes it. */
const again = (ms: Messages): Messages => ms.map((m) => ({ ...structuredClone(m), id: `${m.id}-again` }))
const options = { protectTokens: 3_000, minimumSavings: 2_000, triggerTokens: 8_000 }

describe('createPruner resumed from its state', () => {
  it('answers every call as the pruner kept would, over a history decoded anew each time', () => {
    const kept = createPruner(options)
    let state: PrunerState | undefined
    const raw: Message[] = [SYSTEM]
    let batches = 0
    for (let t = 0; t < 30; t++) {
      raw.push(...turn(t))
      const a = kept.prune(raw.slice(), { limit: 12_000 })
      const fresh = createPruner(options, state === undefined ? {} : { resume: state, onDiscard: (why) => expect.fail(why) })
      const b = fresh.prune(again(raw), { limit: 12_000 })
      expect(b.messages.map((m) => m.parts)).toEqual(a.messages.map((m) => m.parts))
      expect(b.report).toEqual(a.report)
      if (a.changes.length > a.carried) batches++
      state = fresh.state()
      expect(state).toEqual(kept.state())
    }
    expect(batches).toBeGreaterThanOrEqual(2)
    expect(state?.rewritten.length).toBeGreaterThan(0)
  })

  it('does not take a state whose answer the history no longer gives back, and says why', () => {
    const kept = createPruner(options)
    const raw: Message[] = [SYSTEM]
    for (let t = 0; t < 12; t++) raw.push(...turn(t))
    kept.prune(raw, { limit: 12_000 })
    const state = kept.state() as PrunerState
    const why: string[] = []
    const fresh = createPruner(options, { resume: { ...state, output: 'x' }, onDiscard: (w) => why.push(w) })
    const out = fresh.prune(again(raw), { limit: 12_000 })
    expect(why).toEqual([expect.stringMatching(/does not give back the answer/)])
    // pruned afresh: the same as a pruner made without a state
    expect(out.messages.map((m) => m.parts)).toEqual(createPruner(options).prune(raw, { limit: 12_000 }).messages.map((m) => m.parts))
  })

  it('has no state under the fresh policy', () => {
    const p = createPruner({ policy: 'fresh' })
    p.prune([SYSTEM, ...turn(0)])
    expect(p.state()).toBeUndefined()
  })
})
