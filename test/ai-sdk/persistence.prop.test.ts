/**
 * The persistence law over generated conversations: saved turn by turn into a durable store that is
 * opened again from its storage before every save (a restart), with answers lost at any submit (the
 * step kept or not, as the kill found it) and the save retried, the conversation loads back equal,
 * and the store holds each message once.
 */
import type { UIMessage } from 'ai'
import * as E from 'fp-ts/Either'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { uiMessageStore } from '../../src/ai-sdk/persistence.ts'
import { memoryStorage, openDurableStore } from '../../src/store/durable.ts'
import type { ChatStore } from '../../src/store/store.ts'
import { getConversation } from '../../src/store/query.ts'

const word = fc.string({ minLength: 1, maxLength: 8 })
const json = fc.oneof(word, fc.integer(), fc.dictionary(fc.constantFrom('a', 'b'), fc.oneof(word, fc.integer())))
const tool = fc.oneof(
  fc.record({ state: fc.constant('output-available'), output: json }),
  fc.record({ state: fc.constant('output-error'), errorText: word }),
  fc.record({ state: fc.constant('input-available') }),
)
const part = fc.oneof(
  word.map((text) => ({ type: 'text', text, state: 'done' })),
  word.map((text) => ({ type: 'reasoning', text, state: 'done' })),
  fc.tuple(fc.constantFrom('weather', 'ls'), json, tool).map(([name, input, s]) => ({ type: `tool-${name}`, toolCallId: '', input, ...s })),
)
// a step holds content, and may end with a data part (a step of data parts alone does not come back as its own step: a save refuses it)
const step = fc
  .tuple(fc.array(part, { minLength: 1, maxLength: 3 }), fc.option(json, { nil: undefined }))
  .map(([parts, data]) => [{ type: 'step-start' }, ...parts, ...(data === undefined ? [] : [{ type: 'data-note', data }])])
const conversation = fc.array(fc.tuple(word, fc.array(step, { minLength: 1, maxLength: 2 })), { minLength: 1, maxLength: 4 }).map((turns): UIMessage[] => {
  let n = 0
  const list: unknown[] = turns.flatMap(([text, steps], t) => [
    { id: `u${t}`, role: 'user', parts: [{ type: 'text', text }] },
    { id: `a${t}`, role: 'assistant', parts: steps.flat().map((p) => ('toolCallId' in p ? { ...p, toolCallId: `c${n++}` } : p)) },
  ])
  return list as UIMessage[]
})

/**
 * A store whose answer to the submits numbered in `lose` never arrives: the step taken, then an error
 * thrown before its flush (the step is lost with the process) or after it (the step is durable).
 */
const losing = (store: ChatStore, lose: Map<number, boolean>, count: { n: number }): ChatStore => {
  let lostAfterFlush = false
  return {
    ...store,
    submit: (data) => {
      const r = store.submit(data)
      const kept = E.isRight(r) ? lose.get(count.n++) : undefined
      if (kept === undefined) return r
      lose.delete(count.n - 1)
      if (!kept) throw new TypeError('the answer was lost')
      lostAfterFlush = true
      return r
    },
    flush: async () => {
      await store.flush?.()
      if (lostAfterFlush) throw new TypeError('the answer was lost')
    },
  }
}

describe('UI messages saved across restarts and lost answers', () => {
  it('load back equal, each stored once', async () => {
    await fc.assert(
      fc.asyncProperty(
        conversation,
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat({ max: 8 }), fc.boolean()), { maxLength: 3 }),
        async (ui, cuts, faults) => {
          const storage = memoryStorage()
          const lose = new Map(faults)
          const count = { n: 0 }
          const points = [...new Set([...cuts.map((c) => c % (ui.length + 1)), ui.length])].sort((a, b) => a - b)
          for (const p of points) {
            for (let tries = 0;; tries++) {
              const store = await openDurableStore(storage)()
              try {
                await uiMessageStore({ store: losing(store, lose, count), conversationId: 'c' }).save(ui.slice(0, p))
                await store.close()
                break
              } catch (e) {
                expect(String(e)).toContain('the answer was lost')
                expect(tries).toBeLessThan(faults.length)
              }
            }
          }
          expect(lose.size === 0 || count.n <= Math.min(...lose.keys())).toBe(true) // every loss due was met
          const store = await openDurableStore(storage)()
          expect(await uiMessageStore({ store, conversationId: 'c' }).load()).toEqual(ui)
          expect(getConversation('c')(store.state()).map((m) => m.id)).toEqual(ui.map((m) => m.id))
        },
      ),
      { numRuns: 40 },
    )
  })
})
