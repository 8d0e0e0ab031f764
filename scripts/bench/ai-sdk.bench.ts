/**
 * `npm run bench ai-sdk`: what `chatfold/ai-sdk` adds to each step of an AI SDK agent loop. The
 * loop of the tests (test/support/agent-loop.ts): a generated coding-agent history just under a
 * 200,000-token window, 200 `generateText` steps with the SDK's mock model (which answers at once),
 * each adding a tool output of about 10,000 tokens, so the history passes two million tokens. Per
 * step, the time of the middleware (`transformParams`), of the model call it wraps (the mock) and
 * of the whole step; the middleware when pruning is enough and when it must compact;
 * `contextPrepareStep`; and, doing less (no counting, no compaction, nothing kept between steps),
 * the AI SDK's own `pruneMessages` as a `prepareStep`; and the loop with no hook, whose prompts the
 * mock takes however large.
 */
import { generateText, type LanguageModelMiddleware, type PrepareStepFunction, pruneMessages, stepCountIs, wrapLanguageModel } from 'ai'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { contextMiddleware, type ContextOptions, contextPrepareStep } from '../../src/ai-sdk/mod.ts'
import { initial, mockModel, READ_LOG, RESERVE, type Seen, STEPS, tools, WINDOW } from '../../test/support/agent-loop.ts'
import { ms, stats, table } from './lib.ts'

type Timed = { readonly hook: number[]; readonly model: number[]; readonly step: number[] }

const timedModel = (t: Timed): LanguageModelMiddleware => ({
  specificationVersion: 'v3',
  wrapGenerate: async ({ doGenerate }) => {
    const t0 = performance.now()
    const r = await doGenerate()
    t.model.push(performance.now() - t0)
    return r
  },
})

/** Runs the loop once, timing each step, with the middleware or a prepareStep (or neither). */
const run = async (how: { readonly middleware?: LanguageModelMiddleware; readonly prepareStep?: PrepareStepFunction<typeof tools> }): Promise<Timed> => {
  const t: Timed = { hook: [], model: [], step: [] }
  const seen: Seen[] = []
  const base = wrapLanguageModel({ model: mockModel(seen, { counting: false }), middleware: timedModel(t) })
  const timedHook = <A, R>(f: (a: A) => PromiseLike<R> | R) => async (a: A): Promise<R> => {
    const t0 = performance.now()
    const r = await f(a)
    t.hook.push(performance.now() - t0)
    return r
  }
  const mw = how.middleware
  const model = mw === undefined
    ? base
    : wrapLanguageModel({ model: base, middleware: { ...mw, ...(mw.transformParams === undefined ? {} : { transformParams: timedHook(mw.transformParams) }) } })
  const { system, messages } = initial()
  let last = performance.now()
  await generateText({
    model,
    system,
    messages,
    tools,
    stopWhen: stepCountIs(STEPS),
    ...(how.prepareStep === undefined ? {} : { prepareStep: timedHook(how.prepareStep) }),
    onStepFinish: () => {
      const now = performance.now()
      t.step.push(now - last)
      last = now
    },
  })
  return t
}

const options: ContextOptions = { contextWindow: WINDOW, reserveTokens: RESERVE, estimate: heuristic }

export default async (): Promise<void> => {
  const cases: ReadonlyArray<readonly [string, () => Promise<Timed>]> = [
    ['none (the loop alone; its prompts pass the window from step 5 on)', () => run({})],
    ['contextMiddleware, pruning enough', () => run({ middleware: contextMiddleware(options) })],
    [
      'contextMiddleware, compacting (tool output protected)',
      () => run({ middleware: contextMiddleware({ ...options, pruning: { protectedTools: ['read_log'] } }) }),
    ],
    [
      'contextPrepareStep, compacting (pruning off)',
      () => run({ prepareStep: contextPrepareStep({ ...options, pruning: 'off', system: initial().system, tools: [READ_LOG] }) }),
    ],
    [
      'AI SDK pruneMessages as prepareStep (tool calls before the last 2 messages)',
      () => run({ prepareStep: ({ messages }) => ({ messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }) }) }),
    ],
  ]
  const rows: string[][] = []
  for (const [name, f] of cases) {
    const t = await f()
    const hook = stats(t.hook)
    const model = stats(t.model)
    const step = stats(t.step)
    rows.push([name, ms(hook.median), ms(hook.max), ms(model.median), ms(step.median), ms(step.max), ms(t.step.reduce((a, b) => a + b, 0) / 1000)])
  }
  table(
    `AI SDK agent loop: ${STEPS} steps, the history growing past 2 M tokens, window ${WINDOW.toLocaleString('en')} (ms a step; mock model)`,
    ['hook', 'hook median', 'hook worst', 'model call median', 'step median', 'step worst', 'loop s'],
    rows,
  )
}
