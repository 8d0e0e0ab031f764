/**
 * Forks against a model: for random histories, fork points and later appends (and a history limit
 * or none), a fork holds its parent's messages up to the fork point, appends to either side never
 * show on the other, every state keeps its invariants, and the log replays to the same state.
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { createChatStore } from '../../src/store/store.ts'
import { type StoreCommand } from '../../src/store/log.ts'
import { replayLog } from '../../src/store/durable.ts'
import { getConversation } from '../../src/store/query.ts'
import { conversationIds, validateState } from '../../src/store/state.ts'

type Op =
  | { readonly op: 'append'; readonly to: number; readonly advance: boolean }
  | { readonly op: 'fork'; readonly from: number; readonly at: number }

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('append' as const), to: fc.nat(), advance: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('fork' as const), from: fc.nat(), at: fc.nat() }) },
)

describe('forks against a model', () => {
  it('a fork holds the parent prefix; later appends to either side never show on the other', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 60 }), fc.constantFrom(Infinity, 3), (ops, limit) => {
        const commands: StoreCommand[] = []
        const store = createChatStore(
          { startTime: '2024-03-15T10:00:00Z', idPrefix: 'p-', maxHistorySize: limit },
          { record: (c) => void commands.push(c), flush: async () => undefined },
        )
        const model = new Map<string, string[]>([['c0', []]])
        let n = 0
        for (const o of ops) {
          const names = [...model.keys()]
          if (o.op === 'append') {
            const to = names[o.to % names.length] ?? 'c0'
            if (o.advance) store.advanceBy(1)
            const id = `m${n++}`
            expect(E.isRight(store.submit({ role: 'user', content: id, message_id: id, conversation_id: to }))).toBe(true)
            const held = [...(model.get(to) ?? []), id]
            model.set(to, held.slice(Math.max(0, held.length - limit)))
          } else {
            const from = names[o.from % names.length] ?? 'c0'
            const held = model.get(from) ?? []
            const at = held[o.at % Math.max(1, held.length)]
            if (at === undefined) {
              // nothing to fork at: refused, nothing changes
              expect(E.isLeft(store.fork(from, 'absent'))).toBe(true)
              continue
            }
            const r = store.fork(from, at)
            if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
            model.set(r.right.conversation_id, held.slice(0, held.indexOf(at) + 1))
          }
          for (const [c, ids] of model) if (ids.length > 0) expect(getConversation(c)(store.state()).map((m) => m.id)).toEqual(ids)
        }
        expect(E.isRight(validateState(store.state()))).toBe(true)
        expect(conversationIds(store.state())).toEqual([...model.keys()].filter((c) => (model.get(c) ?? []).length > 0).sort())
        const replayed = replayLog({ snapshot: undefined, tail: JSON.parse(JSON.stringify(commands.map((command, i) => ({ seq: i + 1, command })))) })
        expect(E.isRight(replayed) && replayed.right.simulator?.state).toEqual(store.state())
      }),
      { numRuns: 200 },
    )
  })
})
