/**
 * The engine contract: one suite, run over every way an engine can be built (`describe.each`
 * over modes). `test/engine/engine.test.ts` runs it inline, over an in-thread `MessageChannel` and, where
 * the runtime has `Worker` (Deno, Chromium), in a real Web Worker; `test/node/engine-worker.test.ts`
 * runs it in a `worker_threads` worker. Web-standard only, so it runs on every runtime.
 */
import { describe, expect, it } from 'vitest'
import { expose } from 'comlink'
import { sampleSession } from '../../sample/session.ts'
import { deepFreeze } from './arbitraries.ts'
import { type Engine, type EngineOptions } from '../../src/engine/api.ts'
import { createEngine } from '../../src/engine/client.ts'
import { type EngineHost } from '../../src/engine/host.ts'
import { createEngineService } from '../../src/engine/service.ts'
import { EngineError, type EngineProgress } from '../../src/engine/types.ts'
import * as E from 'fp-ts/Either'
import { makeMessage, type Message, type Messages, textMessage } from '../../src/message/message.ts'
import { fromJSONL, toJSON, toJSONL } from '../../src/history/codec.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessage, countMessages } from '../../src/tokens/count.ts'
import { pruneToolResultsWithReceipt } from '../../src/history/prune.ts'
import { applyChanges } from '../../src/engine/types.ts'
import { planCompaction, shouldCompact } from '../../src/compaction/plan.ts'
import { contextTokens } from '../../src/tokens/usage.ts'
import { text } from '../../src/message/part-make.ts'
import { renderTranscript } from '../../src/compaction/transcript.ts'
import { compact, type Summarizer } from '../../src/compaction/compact.ts'
import { callCostLineOf } from '../../src/cost/call-cost.ts'
import { withPrices } from '../../src/cost/lookup.ts'
import { PRICES } from '../../src/cost/prices.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import { SUMMARY_SECTIONS } from '../../src/compaction/summary.ts'

/** One way of building an engine. */
export type EngineCase = { readonly name: string; readonly make: (options: EngineOptions) => Engine }

/** An engine service on the other end of an in-thread `MessageChannel`: every value is structured-cloned, as in a worker. */
export const channelHost = (): EngineHost => {
  const { port1, port2 } = new MessageChannel()
  expose(createEngineService(), port1)
  return {
    endpoint: port2,
    onFailure: () => undefined,
    terminate: () => {
      port1.close()
      port2.close()
    },
  }
}

/** The cases every runtime has: inline, and over a MessageChannel. */
export const portableCases: ReadonlyArray<EngineCase> = [
  { name: 'inline', make: (o) => createEngine({ ...o, mode: 'inline' }) },
  { name: 'channel', make: (o) => createEngine({ ...o, mode: 'worker', host: channelHost }) },
]

/** A small coding-agent history (≈ 300 messages, images with bytes included), frozen. */
export const history = (messages = 300, seed = 11): Messages => deepFreeze(sampleSession({ messages, seed, maxResult: 3_000 }))

const turn = (n: number): Messages => deepFreeze([textMessage('user', `Turn ${n}: run the tests again`), textMessage('assistant', `Turn ${n}: all green.`)])

const withEngine = (make: EngineCase['make'], options: EngineOptions, f: (engine: Engine) => Promise<void>) => async (): Promise<void> => {
  const engine = make(options)
  try {
    await f(engine)
  } finally {
    engine.dispose()
  }
}

/**
 * A progress callback that keeps each report in `seen`, and a promise that settles once a report
 * `last` accepts has come: reports cross the thread on their own and may arrive after the answer.
 */
const progressUntil = (
  seen: EngineProgress[],
  last: (p: EngineProgress) => boolean,
): { readonly reached: Promise<void>; readonly onProgress: (p: EngineProgress) => void } => {
  let arrived: () => void = () => undefined
  const reached = new Promise<void>((resolve) => (arrived = resolve))
  return {
    reached,
    onProgress: (p) => {
      seen.push(p)
      if (last(p)) arrived()
    },
  }
}

const rejection = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p
  } catch (e) {
    return e
  }
  throw new Error('expected a rejection')
}

/** Defines the contract suite over `cases`. */
export const engineContract = (cases: ReadonlyArray<EngineCase>): void => {
  describe.each(cases)('engine contract ($name)', ({ make }) => {
    const heuristic = { encoding: 'heuristic' } as const

    it(
      'answers once ready, in the mode it was asked for',
      withEngine(make, heuristic, async (engine) => {
        await engine.ready()
        expect(['worker', 'inline']).toContain(engine.mode)
        expect(engine.encoding).toBe('heuristic')
      }),
    )

    it(
      'estimates a history as countMessage does, with its breakdown',
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const got = await engine.estimate(ms)
        const count = countMessage(estimate)
        const sum = (k: 'content' | 'thinking' | 'tools') => ms.reduce((n, m) => n + count(m)[k], 0)
        expect(got).toEqual({
          total: countMessages(estimate)(ms),
          content: sum('content'),
          thinking: sum('thinking'),
          tools: sum('tools'),
          messages: ms.length,
        })
      }),
    )

    it(
      'estimates with o200k_base when asked, and reports progress to the end',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(120, 3)
        const seen: EngineProgress[] = []
        const { reached, onProgress } = progressUntil(seen, (p) => p.done === p.total)
        const got = await engine.estimate(ms, { encoding: 'o200k_base', onProgress })
        expect(got.total).toBe(countMessages(await loadEstimator('o200k_base'))(ms))
        // the last report may cross the thread after the result does: wait for it
        await reached
        expect(seen.at(-1)).toEqual({ phase: 'estimate', done: ms.length, total: ms.length })
      }),
    )

    it(
      'opens a resident session in slices and gives back the very history, bytes included',
      withEngine(make, { ...heuristic, sliceBytes: 16_000 }, async (engine) => {
        const ms = history()
        const seen: EngineProgress[] = []
        const session = await engine.open('s1', ms, { onProgress: (p) => seen.push(p) })
        const estimate = await loadEstimator('heuristic')
        expect(await session.tokens()).toEqual({ messages: ms.length, tokens: countMessages(estimate)(ms) })
        expect(seen.at(-1)).toEqual({ phase: 'open', done: ms.length, total: ms.length })
        const back = await session.snapshot()
        expect(back).toEqual(ms)
        expect(back.some((m) => m.parts.some((p) => p.type === 'image' && p.data instanceof Uint8Array))).toBe(true)
      }),
    )

    it(
      'opens a saved history from a Blob of JSONL or of a JSON array: the messages, counts and progress of open',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(300, 12)
        const opened = await (await engine.open('ref', ms)).tokens()
        for (const text of [toJSONL(ms), toJSON(ms, 2)]) {
          const seen: EngineProgress[] = []
          const session = await engine.openFile('saved', new Blob([text]), { onProgress: (p) => seen.push(p) })
          expect(await session.tokens()).toEqual(opened)
          expect(await session.snapshot()).toEqual(ms)
          expect(seen.at(-1)).toEqual({ phase: 'open', done: ms.length, total: ms.length })
          expect(seen.every((p) => p.phase === 'open' && p.done <= p.total)).toBe(true)
          // the session takes turns like any other
          expect((await session.append(turn(1))).messages).toBe(ms.length + 2)
        }
      }),
    )

    it(
      "reads a file's lines as fromJSONL does (a byte-order mark, \\r\\n endings, blank lines), and an empty file as no messages",
      withEngine(make, heuristic, async (engine) => {
        const ms = history(20, 13)
        const text = `\uFEFF${toJSONL(ms).split('\n').join('\r\n\r\n')}`
        const expected = fromJSONL(text)
        expect(E.isRight(expected) && expected.right).toEqual(ms)
        const session = await engine.openFile('saved', new Blob([text]))
        expect(await session.snapshot()).toEqual(ms)
        expect(await (await engine.openFile('empty', new Blob([]))).tokens()).toEqual({ messages: 0, tokens: 0 })
      }),
    )

    it(
      "rejects a file's bad lines naming each by line, and a value that is no Blob; an earlier session of the id stays",
      withEngine(make, heuristic, async (engine) => {
        const ms = history(10, 14)
        const before = await engine.open('saved', ms)
        const lines = toJSONL(ms).split('\n')
        lines[2] = (lines[2] as string).replace('"role":"', '"role":"bot-')
        lines[6] = '{"id": "broken'
        const e = await rejection(engine.openFile('saved', new Blob([lines.join('\n')])))
        expect(e).toBeInstanceOf(TypeError)
        expect((e as Error).message).toMatch(/line 3: role/)
        expect((e as Error).message).toMatch(/line 7/)
        expect(await before.tokens()).toEqual({ messages: ms.length, tokens: countMessages(await loadEstimator('heuristic'))(ms) })
        const notJson = await rejection(engine.openFile('saved', new Blob(['[{"id": 1}'])))
        expect(notJson).toBeInstanceOf(TypeError)
        const text = await rejection(engine.openFile('saved', toJSONL(ms) as unknown as Blob))
        expect(text).toBeInstanceOf(TypeError)
        expect((text as Error).message).toMatch(/takes a Blob.*got a string/)
        expect((await before.snapshot()).length).toBe(ms.length)
      }),
    )

    it(
      'appends only the new turn and keeps the counts',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(100, 5)
        const session = await engine.open('s1', ms)
        const before = await session.tokens()
        const next = turn(1)
        const after = await session.append(next)
        expect(after).toEqual({ messages: ms.length + 2, tokens: before.tokens + countMessages(await loadEstimator('heuristic'))(next) })
        expect(await session.snapshot()).toEqual([...ms, ...next])
      }),
    )

    const pruning = { protectTokens: 2_000, minimumSavings: 500 } as const

    it(
      'prunes a history as pruneToolResultsWithReceipt does with the same estimator, receipt included',
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const expected = pruneToolResultsWithReceipt({ ...pruning, estimate, count: (m) => countMessage(estimate)(m).total })(ms)
        expect(expected.report.prunedResults).toBeGreaterThan(0)
        expect(expected.receipt.cleared.length).toBe(expected.report.prunedResults)
        const got = await engine.pruneToolResults(ms, pruning)
        expect(got).toEqual(expected)
      }),
    )

    it(
      'prunes a session in place and answers only the changed messages (in small slices here), which rebuild the same history',
      withEngine(make, { ...heuristic, sliceBytes: 4_000 }, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const expected = pruneToolResultsWithReceipt({ ...pruning, estimate, count: (m) => countMessage(estimate)(m).total })(ms)
        const session = await engine.open('s1', ms)
        const result = await session.prune({ ...pruning, receipt: true })
        expect(result.report).toEqual(expected.report)
        expect(expected.receipt.cleared.length).toBeGreaterThan(0)
        expect(result.receipt).toEqual(expected.receipt)
        expect(result.length).toBe(ms.length)
        expect(result.changes.length).toBeGreaterThan(0)
        expect(result.changes.length).toBeLessThan(ms.length / 2)
        expect(applyChanges(result)(ms)).toEqual(expected.messages)
        expect(result.tokens).toBe(countMessages(estimate)(expected.messages))
        expect(await session.tokens()).toEqual({ messages: ms.length, tokens: result.tokens })
        expect(await session.snapshot()).toEqual(expected.messages)
        const again = await session.prune({ ...pruning, receipt: true })
        expect(again.changes).toEqual([])
        expect(again.receipt).toEqual(expected.receipt)
        expect(applyChanges(again)(expected.messages)).toBe(expected.messages)
      }),
    )

    it(
      "answers each message's token counts from the session (in small slices here), after a prune and an append too",
      withEngine(make, { ...heuristic, sliceBytes: 2_000 }, async (engine) => {
        const ms = history()
        const count = countMessage(await loadEstimator('heuristic'))
        const session = await engine.open('s1', ms)
        expect(await session.counts()).toEqual(ms.map(count))
        const result = await session.prune(pruning)
        expect(result.changes.length).toBeGreaterThan(0)
        // a receipt reads the whole history: only when asked for
        expect(result.receipt).toBeUndefined()
        const next = turn(1)
        await session.append(next)
        const got = await session.counts()
        expect(got).toEqual([...applyChanges(result)(ms), ...next].map(count))
        expect(got.reduce((n, b) => n + b.total, 0)).toBe((await session.tokens()).tokens)
      }),
    )

    it(
      'prunes each turn from the history as appended, so other options later give that prune exactly',
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const count = (m: Message) => countMessage(estimate)(m).total
        const session = await engine.open('s1', ms)
        let mirror: Messages = ms
        mirror = applyChanges(await session.prune(pruning))(mirror)
        const next = turn(1)
        await session.append(next)
        mirror = [...mirror, ...next]
        const wider = { protectTokens: 6_000, minimumSavings: 500 }
        const result = await session.prune({ ...wider, receipt: true })
        mirror = applyChanges(result)(mirror)
        const expected = pruneToolResultsWithReceipt({ ...wider, estimate, count })([...ms, ...next])
        expect(mirror).toEqual(expected.messages)
        expect(result.receipt).toEqual(expected.receipt)
        expect(await session.snapshot()).toEqual(mirror)
        expect(result.tokens).toBe(countMessages(estimate)(mirror))
      }),
    )

    it(
      'builds a transcript as renderTranscript does',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(60, 12)
        const got = await engine.renderTranscript(ms, { maxResultLen: 300 })
        expect(got).toBe(renderTranscript({ maxResultLen: 300 })(ms))
        expect(got.length).toBeGreaterThan(100)
      }),
    )

    it(
      'plans a compaction as planCompaction does with the same estimator, statelessly and on a session',
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const expected = planCompaction({ keepRecentTokens: 3_000, estimate })(ms)
        expect(expected.head.length).toBeGreaterThan(0)
        expect(await engine.planCompaction(ms, { keepRecentTokens: 3_000 })).toEqual(expected)
        const session = await engine.open('s1', ms)
        const { system, head, preserved, ...rest } = expected
        expect(await session.plan({ keepRecentTokens: 3_000 })).toEqual({
          ...rest,
          messages: { system: system.length, head: head.length, preserved: preserved.length },
        })
      }),
    )

    it(
      "answers a session's usage-anchored context and shouldCompact as contextTokens and shouldCompact do, after an append too",
      withEngine(make, heuristic, async (engine) => {
        const estimate = await loadEstimator('heuristic')
        const reply = deepFreeze(
          makeMessage({ id: 'reported', role: 'assistant', parts: [text('Done.')], metadata: { usage: { input: 30_000, cacheRead: 9_000, output: 500 } } }),
        )
        const ms = [...history(60, 12), reply]
        const session = await engine.open('s1', ms)
        const anchored = await session.contextTokens({ calibration: 1.25, fixedTokens: 7_000 })
        expect(anchored).toEqual(contextTokens({ estimate, calibration: 1.25, fixedTokens: 7_000 })(ms))
        expect(anchored).toEqual({ total: 39_500, reported: 39_500, estimated: 0, fixed: 0, anchor: 'reported' })
        const next = turn(1)
        await session.append(next)
        const after = await session.contextTokens({ calibration: 1.25 })
        expect(after).toEqual(contextTokens({ estimate, calibration: 1.25 })([...ms, ...next]))
        expect(after.estimated).toBeGreaterThan(0)
        expect(await session.shouldCompact({ contextWindow: after.total + 1_000, reserveTokens: 1_000, calibration: 1.25 })).toBe(false)
        expect(await session.shouldCompact({ contextWindow: after.total + 999, reserveTokens: 1_000, calibration: 1.25 })).toBe(true)
        // without a report, the whole history is estimated and the fixed part counted
        const loose = history(60, 12)
        const other = await engine.open('s2', loose)
        expect(await other.contextTokens({ fixedTokens: 7_000 })).toEqual(contextTokens({ estimate, fixedTokens: 7_000 })(loose))
        expect(await other.shouldCompact({ contextWindow: 200_000, reserveTokens: 0 })).toBe(
          shouldCompact({ estimate, contextWindow: 200_000, reserveTokens: 0 })(loose),
        )
        // the window options cross with a plan: the tail fits beside the fixed part
        const windowed = { contextWindow: 12_000, reserveTokens: 1_000, fixedTokens: 4_000, calibration: 1.25 }
        const planned = await engine.planCompaction(loose, windowed)
        expect(planned).toEqual(planCompaction({ ...windowed, estimate })(loose))
        expect(planned.tokens.preserved).toBeLessThan(planCompaction({ estimate })(loose).tokens.preserved)
        const missing = await rejection(other.shouldCompact())
        expect(missing).toBeInstanceOf(TypeError)
        expect((missing as Error).message).toMatch(/contextWindow/)
      }),
    )

    const compaction = { keepRecentTokens: 3_000 } as const
    const fixedSummary = SUMMARY_SECTIONS.map((h) => `## ${h}\n- noted`).join('\n')

    it(
      'compacts a history with the embedded extractive summariser, as compact does',
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const expected = await compact({ ...compaction, estimate, summarize: extractiveSummarize })(ms)
        expect(expected.report.compacted).toBe(true)
        expect(await engine.compact(ms, compaction)).toEqual(expected)
      }),
    )

    it(
      "calls the caller's summariser across the boundary with the transcript and the prompt",
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const plan = planCompaction({ ...compaction, estimate })(ms)
        const seen: Array<{ transcript: string; prompt: string }> = []
        const result = await engine.compact(ms, {
          ...compaction,
          summarize: (transcript, context) => {
            seen.push({ transcript, prompt: context.prompt })
            return Promise.resolve(fixedSummary)
          },
        })
        expect(seen).toHaveLength(1)
        expect(seen[0]?.transcript).toBe(renderTranscript({})(plan.head))
        expect(seen[0]?.prompt).toMatch(/Goal/)
        expect(result.messages.some((m) => m.parts.some((p) => p.type === 'text' && p.text === fixedSummary))).toBe(true)
        expect(result.report.missingSections).toEqual([])
      }),
    )

    it(
      "prices each model call the caller's summariser tells, as the middleware prices its calls, and gives them with the result",
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const answers = [
          { response: { modelId: 'gpt-5' }, usage: { inputTokens: 1_000_000, outputTokens: 0, inputTokenDetails: { cacheReadTokens: 800_000 } } },
          { response: { modelId: 'in-house-7b' }, usage: { inputTokens: 10, outputTokens: 2 } },
        ]
        const summarize: Summarizer = (_transcript, context) => {
          for (const a of answers) context.onAnswer?.(a)
          return Promise.resolve(fixedSummary)
        }
        const priced = callCostLineOf({})
        const result = await engine.compact(ms, { ...compaction, summarize })
        expect(result.calls).toEqual(answers.map(priced))
        expect(result.calls?.map((c) => c.usd)).toEqual([0.35, null])
        // a price table of the caller's, kept on the caller's side
        const prices = withPrices([{ model: 'in-house-7b', input: 1, output: 2 }])(PRICES)
        const session = await engine.open('costed', ms)
        const resident = await session.compact({ ...compaction, summarize, prices })
        expect(resident.calls).toEqual(answers.map(callCostLineOf({ prices })))
        expect(resident.calls?.[1]?.usd).toBeCloseTo(0.000014, 12)
        // a summariser that calls no model: no calls
        expect((await engine.compact(ms, { ...compaction, summarize: () => Promise.resolve(fixedSummary) })).calls).toBeUndefined()
      }),
    )

    it(
      'gives a provider summariser the messages across the boundary, and keeps the boundary it answers',
      withEngine(make, heuristic, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const plan = planCompaction({ ...compaction, estimate })(ms)
        const boundary = {
          type: 'provider',
          provider: 'anthropic',
          kind: 'compaction',
          data: { type: 'compaction', content: '## Goal\n- noted', encrypted_content: 'b3BhcXVl' },
        } as const
        const heads: Messages[] = []
        const summarize = (_: string, context: { readonly history?: { readonly head: Messages } }) => {
          if (context.history !== undefined) heads.push(context.history.head)
          return Promise.resolve({ boundary })
        }
        const expected = await compact({ ...compaction, estimate, summarize })(ms)
        const result = await engine.compact(ms, { ...compaction, summarize })
        expect(heads).toEqual([plan.head, plan.head])
        expect(result).toEqual(expected)
        expect(result.messages[plan.system.length]?.parts).toEqual([boundary])
      }),
    )

    it(
      'compacts a session in place: answers the rebuilt history (in small slices here), keeps it resident, takes new turns',
      withEngine(make, { ...heuristic, sliceBytes: 4_000 }, async (engine) => {
        const ms = history()
        const estimate = await loadEstimator('heuristic')
        const expected = await compact({ ...compaction, estimate, summarize: extractiveSummarize })(ms)
        const session = await engine.open('s1', ms)
        const seen: EngineProgress[] = []
        const { reached, onProgress } = progressUntil(seen, (p) => p.stage === 'rebuild')
        const result = await session.compact({ ...compaction, onProgress })
        expect(result.messages).toEqual(expected.messages)
        expect(result.archived).toBe(expected.archive.length)
        expect(result.report).toEqual(expected.report)
        expect(result.tokens).toBe(countMessages(estimate)(expected.messages))
        expect(await session.snapshot()).toEqual(expected.messages)
        const next = turn(1)
        expect(await session.append(next)).toEqual({ messages: expected.messages.length + 2, tokens: result.tokens + countMessages(estimate)(next) })
        // the last report may cross the thread after the result does: wait for it
        await reached
        expect(seen.map((p) => p.stage)).toEqual(['plan', 'transcript', 'summarize', 'rebuild'])
      }),
    )

    it(
      "rejects with the summariser's error and leaves the session as it was",
      withEngine(make, heuristic, async (engine) => {
        const ms = history(150, 6)
        const session = await engine.open('s1', ms)
        const e = await rejection(session.compact({ ...compaction, summarize: () => Promise.reject(new Error('model unavailable')) }))
        expect((e as Error).message).toMatch(/model unavailable/)
        expect(await session.snapshot()).toEqual(ms)
      }),
    )

    it(
      "aborts a compaction waiting on the summariser, which sees the call's signal abort",
      withEngine(make, heuristic, async (engine) => {
        const ms = history(150, 6)
        const session = await engine.open('s1', ms)
        const controller = new AbortController()
        let aborted: Promise<void> | undefined
        const p = session.compact({
          ...compaction,
          signal: controller.signal,
          summarize: (_t, context) => {
            aborted = new Promise((resolve) => context.signal?.addEventListener('abort', () => resolve()))
            setTimeout(() => controller.abort(), 0)
            return new Promise<string>(() => undefined)
          },
        })
        const e = await rejection(p)
        expect((e as Error).name).toBe('AbortError')
        await aborted
        expect((await session.tokens()).messages).toBe(ms.length)
      }),
    )

    it(
      'runs the calls of one session in order',
      withEngine(make, heuristic, async (engine) => {
        const session = await engine.open('s1', [])
        const calls = [session.append(turn(1)), session.tokens(), session.append(turn(2)), session.tokens()]
        const [, t1, , t2] = await Promise.all(calls)
        expect(t1?.messages).toBe(2)
        expect(t2?.messages).toBe(4)
      }),
    )

    it(
      'keeps sessions apart, and a later open of the same id replaces the earlier',
      withEngine(make, heuristic, async (engine) => {
        const a = await engine.open('a', turn(1))
        const b = await engine.open('b', [...turn(1), ...turn(2)])
        expect((await a.tokens()).messages).toBe(2)
        expect((await b.tokens()).messages).toBe(4)
        const a2 = await engine.open('a', [])
        expect((await a2.tokens()).messages).toBe(0)
        const e = await rejection(a.tokens())
        expect(e).toBeInstanceOf(EngineError)
        expect((e as EngineError).code).toBe('session')
        expect((e as EngineError).message).toMatch(/replaced/)
      }),
    )

    it(
      'rejects calls on a closed session',
      withEngine(make, heuristic, async (engine) => {
        const s = await engine.open('s1', turn(1))
        await s.close()
        const e = await rejection(s.append(turn(2)))
        expect(e).toBeInstanceOf(EngineError)
        expect((e as EngineError).message).toMatch(/closed/)
      }),
    )

    it(
      'never mutates its inputs (they are frozen)',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(80, 9)
        const copy = structuredClone(ms)
        const s = await engine.open('s1', ms)
        await s.append(turn(3))
        await engine.estimate(ms)
        expect(ms).toEqual(copy)
      }),
    )

    it(
      'rejects at once with the reason of an already aborted signal',
      withEngine(make, heuristic, async (engine) => {
        const controller = new AbortController()
        controller.abort(new Error('not now'))
        const e = await rejection(engine.estimate(history(20, 1), { signal: controller.signal }))
        expect((e as Error).message).toBe('not now')
      }),
    )

    it(
      'opens a file whose last line a crash tore as loadHistory does, and reports it with tornTail: fail',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(12, 16)
        const text = toJSONL(ms)
        const torn = new Blob([text.slice(0, text.length - 30)])
        expect(await (await engine.openFile('torn', torn)).snapshot()).toEqual(ms.slice(0, -1))
        const e = await rejection(engine.openFile('torn', torn, { tornTail: 'fail' }))
        expect(e).toBeInstanceOf(TypeError)
        expect((e as Error).message).toMatch(new RegExp(`line ${ms.length}: expected a complete last line`))
      }),
    )

    it(
      'stops reading a file when aborted, and works on after',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(400, 15)
        const file = new Blob([toJSONL(ms)])
        const early = new AbortController()
        early.abort(new Error('not now'))
        expect(((await rejection(engine.openFile('saved', file, { signal: early.signal }))) as Error).message).toBe('not now')
        const controller = new AbortController()
        const p = engine.openFile('saved', file, { encoding: 'o200k_base', signal: controller.signal })
        controller.abort()
        expect(((await rejection(p)) as Error).name).toBe('AbortError')
        expect((await (await engine.openFile('saved', file)).tokens()).messages).toBe(ms.length)
      }),
    )

    it(
      'rejects a running call as soon as it is aborted, and keeps working after',
      withEngine(make, heuristic, async (engine) => {
        const ms = history(400, 2)
        const controller = new AbortController()
        const p = engine.estimate(ms, { encoding: 'o200k_base', signal: controller.signal })
        controller.abort()
        const e = await rejection(p)
        expect((e as Error).name).toBe('AbortError')
        expect((await engine.estimate(turn(1))).messages).toBe(2)
      }),
    )

    it('rejects pending and later calls once disposed', async () => {
      const engine = make(heuristic)
      const pending = engine.estimate(history(300, 4), { encoding: 'o200k_base' })
      engine.dispose()
      for (const e of [await rejection(pending), await rejection(engine.estimate(turn(1))), await rejection(engine.ready())]) {
        expect(e).toBeInstanceOf(EngineError)
        expect((e as EngineError).code).toBe('disposed')
      }
    })

    it(
      'restarts: sessions of the old engine are lost, new calls work',
      withEngine(make, heuristic, async (engine) => {
        const s = await engine.open('s1', turn(1))
        await engine.restart()
        const e = await rejection(s.tokens())
        expect(e).toBeInstanceOf(EngineError)
        expect((e as EngineError).message).toMatch(/restarted/)
        const s2 = await engine.open('s1', turn(2))
        expect((await s2.tokens()).messages).toBe(2)
      }),
    )
  })
}
