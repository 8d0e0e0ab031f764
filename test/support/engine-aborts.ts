/**
 * Aborts and bad input, over every way an engine can be built (like the engine contract): every
 * session call aborted after a random delay (at once, part-way, or too late to matter) either
 * resolves with its full effect or rejects having changed nothing (the snapshot and the counts
 * before equal those after); a compaction whose summariser never settles times out and changes
 * nothing; bad messages reject with the decoder's issues by path. Bounded trials, seeded delays.
 */
import { describe, expect, it } from 'vitest'
import type { Engine, EngineOptions, EngineSession } from '../../src/engine/api.ts'
import { applyChanges } from '../../src/engine/types.ts'
import { type Messages, textMessage } from '../../src/message/message.ts'
import type { EngineCase } from './engine-contract.ts'
import { history } from './engine-contract.ts'

/** A small seeded generator (mulberry32): the same delays on every run. */
const random = (seed: number): () => number => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

const settle = <A>(p: Promise<A>): Promise<{ readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: unknown }> =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  )

type Trial = {
  readonly name: string
  /** Runs the call with the signal; answers the history the session holds when the call succeeded. */
  readonly run: (session: EngineSession, before: Messages, signal: AbortSignal) => Promise<Messages>
}

const batch = (n: number): Messages =>
  Array.from({ length: n }, (_, i) => textMessage(i % 2 === 0 ? 'user' : 'assistant', `Turn ${i}: ${'output line\n'.repeat(40)}`))

const trials: ReadonlyArray<Trial> = [
  {
    name: 'append (a batch larger than one send)',
    run: async (session, before, signal) => {
      const more = batch(40)
      await session.append(more, { signal })
      return [...before, ...more]
    },
  },
  { name: 'tokens', run: async (session, before, signal) => (await session.tokens({ signal }), before) },
  { name: 'prune', run: async (session, before, signal) => applyChanges(await session.prune({ protectTokens: 2_000, minimumSavings: 100, signal }))(before) },
  { name: 'plan', run: async (session, before, signal) => (await session.plan({ keepRecentTokens: 3_000, signal }), before) },
  { name: 'compact', run: async (session, _before, signal) => (await session.compact({ keepRecentTokens: 3_000, signal })).messages },
  {
    name: 'compact with a slow summariser',
    run: async (session, _before, signal) =>
      (await session.compact({ keepRecentTokens: 3_000, signal, summarize: async () => (await sleep(5), '## Goal\n- noted') })).messages,
  },
  { name: 'snapshot', run: async (session, before, signal) => (await session.snapshot({ signal }), before) },
]

const TRIALS = 6

/** Defines the abort and bad-input suite over `cases`. */
export const engineAborts = (cases: ReadonlyArray<EngineCase>): void => {
  describe.each(cases)('engine aborts and bad input ($name)', ({ make }) => {
    const options: EngineOptions = { encoding: 'heuristic', sliceBytes: 4_000 }
    const withEngine = (f: (engine: Engine) => Promise<void>) => async (): Promise<void> => {
      const engine = make(options)
      try {
        await f(engine)
      } finally {
        engine.dispose()
      }
    }

    it.each(trials)('a $name aborted after a random delay rejects having changed nothing, or succeeds whole', ({ run }) =>
      withEngine(async (engine) => {
        const ms = history(200, 21)
        const next = random(ms.length + run.length)
        let rejected = 0
        for (let trial = 0; trial < TRIALS; trial++) {
          const session = await engine.open('s', ms)
          const tokens = await session.tokens()
          const controller = new AbortController()
          // the first trial aborts at once; the others after up to 30 ms
          const delay = trial === 0 ? 0 : Math.floor(next() * 30)
          const outcome = settle(run(session, ms, controller.signal))
          if (delay === 0) controller.abort()
          else setTimeout(() => controller.abort(), delay)
          const r = await outcome
          if (r.ok) {
            expect(await session.snapshot()).toEqual(r.value)
          } else {
            rejected++
            expect((r.error as Error).name).toBe('AbortError')
            expect(await session.snapshot()).toEqual(ms)
            expect(await session.tokens()).toEqual(tokens)
            // and the session takes a retry as if nothing had happened
            const retried = await run(session, ms, new AbortController().signal)
            expect(await session.snapshot()).toEqual(retried)
          }
          await session.close()
        }
        expect(rejected).toBeGreaterThan(0)
      })())

    it(
      'an open aborted after a random delay leaves the session it would replace open and unchanged',
      withEngine(async (engine) => {
        const ms = history(120, 4)
        const next = random(7)
        let rejected = 0
        for (let trial = 0; trial < TRIALS; trial++) {
          const old = await engine.open('s', ms)
          const controller = new AbortController()
          const opening = settle(engine.open('s', history(200, 21), { signal: controller.signal }))
          const delay = trial === 0 ? 0 : Math.floor(next() * 30)
          if (delay === 0) controller.abort()
          else setTimeout(() => controller.abort(), delay)
          const r = await opening
          if (r.ok) {
            expect(await r.value.snapshot()).toEqual(history(200, 21))
          } else {
            rejected++
            expect(await old.snapshot()).toEqual(ms)
          }
        }
        expect(rejected).toBeGreaterThan(0)
      }),
    )

    it(
      'a compaction whose summariser never settles times out, rejects, and leaves the session as it was',
      withEngine(async (engine) => {
        const ms = history(150, 6)
        const session = await engine.open('s', ms)
        // The timeout counts from the call, and the engine has work to do before it calls the
        // summariser: on a busy machine a short one can fire first. Such a try still has to time out
        // and change nothing; the next waits four times as long, until the summariser was called
        // before the timeout, and then it must see its signal abort.
        for (let timeout = 50;; timeout *= 4) {
          let called = false
          let aborted = false
          const e = await settle(
            session.compact({
              keepRecentTokens: 3_000,
              timeout,
              summarize: (_t, context) => {
                called = true
                if (context.signal?.aborted === true) aborted = true
                else context.signal?.addEventListener('abort', () => (aborted = true))
                return new Promise<string>(() => undefined)
              },
            }),
          )
          expect(e.ok).toBe(false)
          expect(!e.ok && (e.error as Error).name).toBe('TimeoutError')
          expect(await session.snapshot()).toEqual(ms)
          if (called) {
            expect(aborted).toBe(true)
            break
          }
          if (timeout >= 12_800) throw new Error(`the summariser was not called within ${timeout} ms`)
        }
        // the session is not held: the next call runs
        expect((await session.append([textMessage('user', 'next')])).messages).toBe(ms.length + 1)
      }),
    )

    it(
      "rejects bad messages with the decoder's issues by path, on open, append and a history call",
      withEngine(async (engine) => {
        const bad = [{ role: 'bot' }] as unknown as Messages
        const calls = [
          settle<unknown>(engine.open('x', bad)),
          settle<unknown>(engine.estimate(bad)),
          settle<unknown>(engine.pruneToolResults([textMessage('user', 'ok'), ...bad])),
        ]
        for (const p of calls) {
          const r = await p
          expect(r.ok).toBe(false)
          const error = (r as { error: Error }).error
          expect(error).toBeInstanceOf(TypeError)
          expect(error.message).toMatch(/^Cannot decode messages: /)
          expect(error.message).toMatch(/\[\d\]\.role: expected "system" \| "user" \| "assistant" \| "tool", got "bot"/)
        }
        const three = batch(3)
        const session = await engine.open('s', three)
        const r = await settle(session.append([...batch(60), { id: 'm', role: 'user', parts: [{ type: 'txt' }] }] as unknown as Messages))
        expect(r.ok).toBe(false)
        expect((r as { error: Error }).error.message).toMatch(/\[60\]\.parts\[0\]/)
        expect(await session.snapshot()).toEqual(three)
        const notArray = await settle(engine.estimate('hello' as unknown as Messages))
        expect((notArray as { error: Error }).error.message).toMatch(/Cannot decode messages: .*expected/)
      }),
    )
  })
}
