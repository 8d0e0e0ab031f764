/**
 * A session handler answers the session's next state and leaves the state it was given as it was,
 * its pruner cache included: a prune that the service undoes takes everything it added with it.
 */
import { describe, expect, it } from 'vitest'
import { type Resident, sessionHandlers } from '../../src/engine/_ops.ts'
import type { SessionPruner as Pruner } from '../../src/history/prune-changes.ts'
import { countMessage } from '../../src/tokens/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { sampleSession } from '../../sample/session.ts'

const counted = countMessage(heuristic)

const context = (state: Resident) => ({
  signal: new AbortController().signal,
  estimate: heuristic,
  count: counted,
  summarize: undefined,
  onProgress: undefined,
  state,
  load: () => Promise.resolve({ messages: [], tokens: 0 }),
})

describe('a session prune', () => {
  it('adds its pruner to the next state only, keeping the four most recent, and reuses a kept one', async () => {
    const history = sampleSession({ messages: 60, seed: 4, maxResult: 4_000 })
    const tokens = history.reduce((n, m) => n + counted(m).total, 0)
    let state: Resident = { messages: history, appended: history, pruned: [], tokens, pruners: new Map() }
    const seen: Pruner[] = []
    for (const protectTokens of [0, 100, 200, 300, 400]) {
      const before = state
      const entries = [...before.pruners]
      const { next } = await sessionHandlers.prune({ protectTokens, minimumSavings: 0 }, context(before))
      expect([...before.pruners]).toEqual(entries)
      expect(next?.pruners.size).toBe(Math.min(4, entries.length + 1))
      const added = [...(next?.pruners.values() ?? [])].at(-1)
      expect(added).toBeDefined()
      expect(seen).not.toContain(added)
      if (added !== undefined) seen.push(added)
      state = next ?? state
    }
    // the oldest options were evicted; the newest are reused as they are
    expect([...state.pruners.values()]).toEqual(seen.slice(1))
    const again = await sessionHandlers.prune({ protectTokens: 400, minimumSavings: 0 }, context(state))
    expect((again.next ?? state).pruners).toBe(state.pruners)
  })
})
