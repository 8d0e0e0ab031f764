/**
 * The usage a history records, as its providers reported it for each reply, per model and in
 * total, next to chatfold's estimate of the same (`recordedUsage`).
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import type { Estimator } from './message-tokens.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'
import { totalOf } from './message-tokens.ts'
import { isObject } from '../internal/object.ts'
import { smartHeuristic } from './heuristic.ts'
import { countMessage } from './count.ts'

// --- recorded usage ---

/**
 * The token usage a provider reported for one model reply, as the readers write it in the reply's
 * `metadata.usage`: `input` (the prompt tokens neither read from nor written to the cache),
 * `output`, and where reported the cache reads and writes and the reasoning share. The prompt is
 * `input + cacheRead + cacheWrite` for every source: OpenAI and Gemini count the cached tokens
 * inside their input figure, and the readers take them out (the tool's own record stays in the
 * message's metadata).
 *
 * @example
 * import type { MessageUsage } from 'chatfold/tokens'
 * const u: MessageUsage = { input: 1200, output: 80, cacheRead: 1024, reasoning: 64 }
 *
 * @since 0.1.0
 * @category tokens
 */
export type MessageUsage = {
  readonly input: number
  readonly output: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
  /** The part of `cacheWrite` cached for one hour, where the provider reports it (Anthropic); the rest is 5 minutes. */
  readonly cacheWrite1h?: number
  readonly reasoning?: number
}

/**
 * Token figures of one request, or a sum of them, as a provider reported them: `input` (prompt
 * tokens not read from or written to a cache, as Anthropic counts them; OpenAI's prompt tokens
 * include the cached ones), `output` (reasoning included), and the cache and reasoning figures
 * (0 when not reported).
 *
 * @example
 * import type { UsageFigures } from 'chatfold/tokens'
 * const u: UsageFigures = { input: 12, output: 340, cacheRead: 18_000, cacheWrite: 600, reasoning: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export type UsageFigures = {
  readonly input: number
  readonly output: number
  readonly cacheRead: number
  readonly cacheWrite: number
  readonly reasoning: number
}

/**
 * The usage recorded for one model: how many replies carried a report, their figures summed, and
 * the estimates to read next to them: `reportedPrompt` (the sum of each request's `input +
 * cacheRead + cacheWrite`) against `estimatedPrompt` (the sum of the estimates of what the history
 * holds of each request's prompt), and `estimatedOutput` (the replies' own tokens) against `output`.
 *
 * @example
 * import type { ModelUsage } from 'chatfold/tokens'
 * const m: ModelUsage = { model: 'claude-sonnet-4-5', provider: 'anthropic', replies: 2, input: 20, output: 400, cacheRead: 30_000, cacheWrite: 900, reasoning: 0, reportedPrompt: 30_920, estimatedPrompt: 28_100, estimatedOutput: 380 }
 *
 * @since 0.1.0
 * @category tokens
 */
export type ModelUsage = UsageFigures & {
  readonly model: string
  readonly provider?: string
} & UsageEstimates

/**
 * The estimates {@link recordedUsage} sets next to a sum of reports (see {@link ModelUsage}).
 *
 * @example
 * import type { UsageEstimates } from 'chatfold/tokens'
 * const e: UsageEstimates = { replies: 1, reportedPrompt: 1_506, estimatedPrompt: 1_390, estimatedOutput: 60 }
 *
 * @since 0.1.0
 * @category tokens
 */
export type UsageEstimates = {
  readonly replies: number
  readonly reportedPrompt: number
  readonly estimatedPrompt: number
  readonly estimatedOutput: number
}

/**
 * The last reply of the main conversation that carried a report, and how the estimate compares:
 * `reportedContext` is its `input + cacheRead + cacheWrite` (the whole prompt the provider read),
 * `estimatedContext` the estimate of what the history holds of that prompt (the messages before it
 * that reach a model, from the last compaction summary on, sub-conversations left out), and `ratio`
 * the second over the first (absent when nothing was reported). The provider's prompt also holds
 * what a history file does not record (tool definitions, a system prompt the client adds), so the
 * ratio measures that too, besides the estimator's distance from the model's tokenizer.
 *
 * @example
 * import type { LastRequestUsage } from 'chatfold/tokens'
 * const last: LastRequestUsage = { messageId: 'a9', model: 'claude-sonnet-4-5', reported: { input: 3, output: 120, cacheRead: 41_000, cacheWrite: 250, reasoning: 0 }, reportedContext: 41_253, estimatedContext: 37_900, ratio: 0.919 }
 *
 * @since 0.1.0
 * @category tokens
 */
export type LastRequestUsage = {
  readonly messageId: string
  readonly model?: string
  readonly createdAt?: string
  readonly reported: UsageFigures
  readonly reportedContext: number
  readonly estimatedContext: number
  readonly ratio?: number
}

/**
 * What {@link recordedUsage} found: the usage per model (in order of first use) and in total, the
 * time the history spans (its earliest and latest `createdAt`, and the milliseconds between), the
 * last reported request, how many assistant replies carried no report, and the ids of those whose
 * `metadata.usage` was not in the expected shape (left out of every sum).
 *
 * @example
 * import { recordedUsage, type RecordedUsage } from 'chatfold/tokens'
 * const describe = (u: RecordedUsage) => `${u.total.output} output tokens over ${u.byModel.length} models`
 *
 * @since 0.1.0
 * @category tokens
 */
export type RecordedUsage = {
  readonly byModel: ReadonlyArray<ModelUsage>
  readonly total: UsageFigures & UsageEstimates
  readonly span?: { readonly first: string; readonly last: string; readonly ms: number }
  readonly last?: LastRequestUsage
  readonly unreported: number
  readonly malformed: ReadonlyArray<string>
}

/**
 * Options of {@link recordedUsage}: the estimator (`smartHeuristic` by default) or a counter of
 * one message's tokens that you keep (see `UsageCorrectedOptions`).
 *
 * @example
 * import { loadEstimator } from 'chatfold/tokenizer'
 * import { recordedUsage, type RecordedUsageOptions } from 'chatfold/tokens'
 * const opts: RecordedUsageOptions = { estimate: await loadEstimator('o200k_base') }
 *
 * @since 0.1.0
 * @category tokens
 */
export type RecordedUsageOptions = {
  readonly estimate?: Estimator
  readonly count?: (m: Message) => number
}

const figure = (u: Readonly<Record<string, unknown>>, k: string, required: boolean): number | undefined | false => {
  const v = u[k]
  if (v === undefined) return required ? false : 0
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : false
}

/** `metadata.usage` as figures; `undefined` when absent, `false` when not in the expected shape. */
const usageOf = (m: Message): UsageFigures | undefined | false => {
  const u = m.metadata?.['usage']
  if (u === undefined) return undefined
  if (!isObject(u)) return false
  const input = figure(u, 'input', true)
  const output = figure(u, 'output', true)
  const cacheRead = figure(u, 'cacheRead', false)
  const cacheWrite = figure(u, 'cacheWrite', false)
  const reasoning = figure(u, 'reasoning', false)
  if (input === false || output === false || cacheRead === false || cacheWrite === false || reasoning === false) return false
  return { input: input ?? 0, output: output ?? 0, cacheRead: cacheRead ?? 0, cacheWrite: cacheWrite ?? 0, reasoning: reasoning ?? 0 }
}

/** The call a sub-conversation message answers to (`metadata.subagent.toolCallId`), if it is one. */
const subconversationOf = (m: Message): string | undefined => {
  const s = m.metadata?.['subagent']
  return isObject(s) && typeof s['toolCallId'] === 'string' ? s['toolCallId'] : undefined
}

type Sum = { -readonly [K in keyof (UsageFigures & UsageEstimates)]: number }
const zero = (): Sum => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  replies: 0,
  reportedPrompt: 0,
  estimatedPrompt: 0,
  estimatedOutput: 0,
})
const add = (s: Sum, u: UsageFigures, prompt: number, output: number): void => {
  s.input += u.input
  s.output += u.output
  s.cacheRead += u.cacheRead
  s.cacheWrite += u.cacheWrite
  s.reasoning += u.reasoning
  s.replies++
  s.reportedPrompt += u.input + u.cacheRead + u.cacheWrite
  s.estimatedPrompt += prompt
  s.estimatedOutput += output
}

/**
 * The token usage a history records, next to chatfold's estimate: each assistant reply's
 * `metadata.usage` (`{ input, output, cacheRead?, cacheWrite?, reasoning? }`, as its provider
 * reported it) summed per model and in total; next to the reported prompts, the estimate of what
 * the history holds of each (the messages before the reply that reach a model, from the last
 * compaction summary on; for a reply of a sub-conversation, that sub-conversation's messages before
 * it), and next to the output, the estimate of the replies themselves; the time span of the
 * history; and the last reply of the main conversation that carries a report, its reported prompt
 * against the estimate, whose ratio shows how far the estimator is from that model's tokenizer
 * (and what the provider's prompt holds that the history does not). Sub-conversation messages are
 * those marked `metadata.subagent = { toolCallId }`. A `usage` not in that shape is named in
 * `malformed` and left out. Pure: the same history gives the same figures.
 *
 * @example
 * import { heuristic, recordedUsage } from 'chatfold/tokens'
 * import { makeMessage, text, textMessage } from 'chatfold/message'
 * const reply = makeMessage({ role: 'assistant', parts: [text('Hello!')], model: 'm1', metadata: { usage: { input: 9, output: 3 } } })
 * const u = recordedUsage({ estimate: heuristic })([textMessage('user', 'Hi'), reply])
 * u.total.output // 3
 * u.last?.reportedContext // 9
 *
 * @since 0.1.0
 * @category tokens
 */
export const recordedUsage = (opts: RecordedUsageOptions) => (ms: Messages): RecordedUsage => {
  const count = opts.count ?? totalOf(countMessage(opts.estimate ?? smartHeuristic))
  const models = new Map<string, Sum & { provider?: string }>()
  const total = zero()
  const malformed: string[] = []
  let unreported = 0
  let first: string | undefined
  let firstMs = Infinity
  let last: string | undefined
  let lastMs = -Infinity
  let last_: { readonly at: number; readonly usage: UsageFigures; readonly prompt: number } | undefined
  // what a request's prompt holds so far, estimated: the main conversation's (from its last
  // compaction summary on), and each sub-conversation's, by the call that started it
  let mainContext = 0
  const subContext = new Map<string, number>()
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i] as Message
    if (m.createdAt !== undefined) {
      const t = Date.parse(m.createdAt)
      if (t < firstMs) {
        firstMs = t
        first = m.createdAt
      }
      if (t > lastMs) {
        lastMs = t
        last = m.createdAt
      }
    }
    const sub = subconversationOf(m)
    const prompt = sub === undefined ? mainContext : (subContext.get(sub) ?? 0)
    if (sub !== undefined) subContext.set(sub, prompt + count(m))
    else if (isCompactionSummary(m)) mainContext = count(m)
    else if (!isInternal(m)) mainContext += count(m)
    if (m.role !== 'assistant' || m.kind === 'metadata' || m.kind === 'bookmark') continue
    const u = usageOf(m)
    if (u === false) malformed.push(m.id)
    if (u === undefined || u === false) {
      if (m.kind === 'normal') unreported++
      continue
    }
    const key = m.model ?? 'unknown'
    let s = models.get(key)
    if (s === undefined) models.set(key, s = m.provider === undefined ? zero() : { ...zero(), provider: m.provider })
    const output = count(m)
    add(s, u, prompt, output)
    add(total, u, prompt, output)
    if (sub === undefined) last_ = { at: i, usage: u, prompt }
  }
  const byModel = [...models].map(([model, s]): ModelUsage => ({ model, ...s }))
  let lastRequest: LastRequestUsage | undefined
  if (last_ !== undefined) {
    const m = ms[last_.at] as Message
    const reportedContext = last_.usage.input + last_.usage.cacheRead + last_.usage.cacheWrite
    lastRequest = {
      messageId: m.id,
      ...(m.model === undefined ? {} : { model: m.model }),
      ...(m.createdAt === undefined ? {} : { createdAt: m.createdAt }),
      reported: last_.usage,
      reportedContext,
      estimatedContext: last_.prompt,
      ...(reportedContext > 0 ? { ratio: last_.prompt / reportedContext } : {}),
    }
  }
  return {
    byModel,
    total,
    ...(first !== undefined && last !== undefined ? { span: { first, last, ms: lastMs - firstMs } } : {}),
    ...(lastRequest === undefined ? {} : { last: lastRequest }),
    unreported,
    malformed,
  }
}
