import { describe, expect, it } from 'vitest'
import { createPruner } from '../../src/history/prune-incremental.ts'
import { batchPays } from '../../src/history/_prune-cached.ts'
import { pruneToolResults, pruneToolResultsWithReport } from '../../src/history/prune.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import { messageTokens } from '../../src/tokens/message-tokens.ts'
import { call, msg, result, txt } from './fixtures.ts'

/** Turn `t`: a user question, an assistant call, a tool result of `size` characters (about size / 4 tokens). */
const turn = (t: number, size = 4000): Message[] => [
  msg(`u${t}`, 'user', [txt(`question ${t}`)]),
  msg(`a${t}`, 'assistant', [txt('Reading.'), call(`c${t}`, 'read', JSON.stringify({ path: `f${t}.ts` }))]),
  msg(`t${t}`, 'tool', [result(`c${t}`, `${t}:`.padEnd(size, 'x'), 'read')]),
]
const SYSTEM = msg('sys', 'system', [txt('Be careful.')])
const count = messageTokens((s) => Math.ceil(s.length / 4))
const total = (ms: Messages): number => ms.reduce((a, m) => a + count(m), 0)
/** How many leading messages `b` shares with `a`, by identity. */
const shared = (a: Messages, b: Messages): number => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}

/** Runs a pruner over a history growing a turn a call (the raw history each time, as a framework sends it); its answers. */
const run = (options: Parameters<typeof createPruner>[0], turns: number, limit?: number): Messages[] => {
  const pruner = createPruner(options)
  const raw: Message[] = [SYSTEM]
  const answers: Messages[] = []
  for (let t = 0; t < turns; t++) {
    raw.push(...turn(t))
    answers.push(pruner.prune(raw.slice(), limit === undefined ? undefined : { limit }).messages)
  }
  return answers
}

/** The calls whose answer does not start with the previous answer (an edit before the cached prefix). */
const breaks = (answers: ReadonlyArray<Messages>): number[] =>
  answers.flatMap((a, i) => (i > 0 && shared(answers[i - 1] as Messages, a) < (answers[i - 1] as Messages).length ? [i] : []))

describe('createPruner, cached policy (the default)', () => {
  const options = { protectTokens: 3_000, minimumSavings: 0 }

  it('edits in batches: between two batches every answer starts with the previous one, message for message', () => {
    const answers = run({ ...options, triggerTokens: 12_000 }, 40, 20_000)
    const cached = breaks(answers)
    expect(cached.length).toBeGreaterThan(0)
    // a batch prunes down to the protected tail, so the next one is several turns away
    for (let k = 1; k < cached.length; k++) expect((cached[k] as number) - (cached[k - 1] as number)).toBeGreaterThanOrEqual(5)
    // the fresh policy breaks the prefix on every turn once it prunes
    const fresh = breaks(run({ ...options, policy: 'fresh' }, 40))
    expect(fresh.length).toBeGreaterThan(3 * cached.length)
  })

  it('never answers over the limit it is given when pruning can bring the history under it', () => {
    const limit = 15_000
    for (const answer of run({ ...options, triggerTokens: 50_000 }, 40, limit)) expect(total(answer)).toBeLessThanOrEqual(limit)
  })

  it('keeps its answer as it was and appends the new messages: the state is the edited history', () => {
    const pruner = createPruner(options)
    const raw: Message[] = [SYSTEM]
    for (let t = 0; t < 12; t++) raw.push(...turn(t))
    const first = pruner.prune(raw.slice(), { limit: 12_000 })
    expect(first.messages).not.toBe(raw)
    const added = turn(12)
    const next = pruner.prune([...raw, ...added], { limit: 100_000 })
    // nothing was due: the previous answer, every message the same object, and the new turn after it
    expect(shared(first.messages, next.messages)).toBe(first.messages.length)
    expect(next.messages.slice(first.messages.length)).toEqual(added)
    expect(next.carried).toBe(next.changes.length)
    expect(next.changes).toEqual(first.changes)
  })

  it('gives, at its first call, what the pure prune gives', () => {
    const raw: Message[] = [SYSTEM]
    for (let t = 0; t < 12; t++) raw.push(...turn(t))
    const r = createPruner(options).prune(raw)
    expect({ messages: r.messages, report: r.report }).toEqual(pruneToolResultsWithReport(options)(raw))
  })

  it('makes a batch that is not forced only when it pays for the prefix it breaks', () => {
    expect(batchPays(1_000, 100_000, 10_000)).toBe(false)
    expect(batchPays(100_000, 10_000, 10_000)).toBe(true)
    // a history growing by a turn a call, with no trigger and no limit: the protected tail would be
    // written again on every call for little saved, so the pruner waits and prunes several results at once
    const answers = run(options, 40)
    const cached = breaks(answers)
    expect(cached.length).toBeGreaterThan(0)
    expect(cached.length).toBeLessThan(breaks(run({ ...options, policy: 'fresh' }, 40)).length)
  })
})

describe('pruneToolResults stays the fresh prune', () => {
  it('ignores the pruner policy options: the same answer with or without them', () => {
    const raw: Message[] = [SYSTEM]
    for (let t = 0; t < 12; t++) raw.push(...turn(t))
    const plain = pruneToolResults({ protectTokens: 3_000, minimumSavings: 0 })(raw)
    expect(pruneToolResults({ protectTokens: 3_000, minimumSavings: 0, policy: 'cached', triggerTokens: 1_000_000 })(raw)).toEqual(plain)
    // and it prunes every result outside the protected tail on every call, as it always has
    expect(plain).not.toBe(raw)
    expect(total(plain)).toBeLessThan(total(raw))
  })
})
