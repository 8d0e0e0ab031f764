/**
 * The whole compaction: plan, transcript, summary (by a caller-supplied summariser), rebuild.
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import { type EncodingName, loadEstimator } from '../tokenizer/load.ts'
import { countMessage } from '../tokens/count.ts'
import { smartHeuristic } from '../tokens/heuristic.ts'
import { type Estimator, MESSAGE_OVERHEAD } from '../tokens/message-tokens.ts'
import { totalOf } from '../tokens/message-tokens.ts'
import { planCompaction, type WindowBudget } from './plan.ts'
import { renderTranscript } from './transcript.ts'
import { isProviderSummary, type ProviderSummary, rebuildAfterCompaction } from './rebuild.ts'
import { windowOf } from './window.ts'
import { SUMMARY_PROMPT, type SummarySection, validateSummary } from './summary.ts'
import { abortable, throwIfAborted } from '../internal/abort.ts'
import { right } from 'fp-ts/Either'
import { EMPTY_RECEIPT, type Receipt } from '../history/receipt.ts'
import { LEDGER_KEY } from '../history/ledger.ts'
import { isEmptyLedger } from '../history/artifact-ledger.ts'
import type { CallAnswer } from '../cost/call-cost.ts'

/**
 * The conversation's request as the model is sent it, for a summariser that sends the
 * conversation's own prefix rather than a transcript (so that its request reads the provider's
 * prompt cache): the messages as sent (the system prompt first; they start with the messages
 * summarised and fit the model's window), and the tool definitions and tool choice they go with
 * (chatfold's `ToolDefinition`s and `ToolChoice` of `chatfold/adapters`, which a model summariser
 * checks). A model summariser sends them as they are, then its instruction as the last user turn.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import type { SummarizerRequest } from 'chatfold/compaction'
 * const request: SummarizerRequest = {
 *   messages: [textMessage('system', 'You are a coding agent.'), textMessage('user', 'Fix the test.')],
 *   tools: [{ type: 'function', name: 'read_file', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }],
 * }
 *
 * @since 0.1.0
 * @category compaction
 */
export type SummarizerRequest = {
  readonly messages: Messages
  readonly tools?: ReadonlyArray<unknown>
  readonly toolChoice?: unknown
}

/**
 * What `compact` gives a summariser besides the transcript: the instruction to give a model
 * (`prompt`: `SUMMARY_PROMPT` unless `compact` was given another), the signal that aborts the
 * request, and the messages themselves (`history`: the system prompt and the head the summary
 * replaces, from the last provider compaction boundary on), for a summariser that sends them to a
 * provider rather than reading the transcript; and, when the caller gave it (`CompactOptions.request`,
 * as `contextMiddleware` does), the conversation's request as sent (`request`), for a summariser that
 * sends the conversation's own prefix.
 *
 * @since 0.1.0
 * @category compaction
 */
export type SummarizerContext = {
  readonly prompt: string
  readonly signal?: AbortSignal
  readonly history?: { readonly system: Messages; readonly head: Messages }
  readonly request?: SummarizerRequest
  /**
   * Told of each model call the summariser makes, with what its answer reports (the AI SDK's
   * `response.modelId` and `usage`), so that the caller counts the call's cost as the compaction's
   * (`contextMiddleware` does); a summariser that calls no model never calls it.
   */
  readonly onAnswer?: (answer: CallAnswer) => void
}

/**
 * What a summariser answers: the summary as text, or a provider's compaction boundary
 * (`ProviderSummary`), which becomes the history's boundary byte for byte.
 *
 * @since 0.1.0
 * @category compaction
 */
export type Summary = string | ProviderSummary

/**
 * A summariser: the summary of a transcript (see `SummarizerContext` for what else it is given),
 * as text, or as a provider's compaction boundary (`anthropicCompaction`, `openAICompaction`).
 *
 * @since 0.1.0
 * @category compaction
 */
export type Summarizer = (transcript: string, context: SummarizerContext) => Promise<Summary>

/**
 * Progress of `compact`: the stage it has reached, `done` of `total` stages.
 *
 * @since 0.1.0
 * @category compaction
 */
export type CompactProgress = { readonly stage: 'plan' | 'transcript' | 'summarize' | 'rebuild'; readonly done: number; readonly total: number }

/**
 * Options of {@link compact}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type CompactOptions = WindowBudget & {
  /** Writes the summary; a model in real use, `extractiveSummarize` offline. */
  readonly summarize: Summarizer
  /** The budget of the recent tail kept verbatim; default 20,000 tokens. */
  readonly keepRecentTokens?: number
  /** Tool results in the transcript are cut to this many characters; default 2,000. */
  readonly maxResultLen?: number
  /** Where the tail may start (see `planCompaction`); default `turn`. */
  readonly boundary?: 'turn' | 'message'
  /** An estimator, or the name of one to load; `smartHeuristic` by default. */
  readonly estimate?: Estimator | EncodingName
  /**
   * Tokens of one message, for the planning and the report; default: the one definition with
   * `estimate`, by a counter made for the call. Give the total of a counter you keep
   * (`const counter = countMessage(estimate)`, then `(m) => counter(m).total`) to count a growing
   * history again at the cost of its new messages only. A count of your own must be pure (the same
   * message always has the same count).
   */
  readonly count?: (m: Message) => number
  /** The instruction passed to the summariser; `SUMMARY_PROMPT` by default. */
  readonly prompt?: string
  /** The conversation's request as sent, passed to the summariser (see `SummarizerRequest`). */
  readonly request?: SummarizerRequest
  /** Aborts the compaction (and is passed to the summariser); the promise rejects with its reason. */
  readonly signal?: AbortSignal
  /** Called as each stage starts. */
  readonly onProgress?: (progress: CompactProgress) => void
}

/**
 * What a compaction did.
 *
 * @since 0.1.0
 * @category compaction
 */
export type CompactionReport = {
  /** False when there was nothing to summarise (the history is returned as it was). */
  readonly compacted: boolean
  /** Estimated tokens that reach a model, before and after. */
  readonly tokensBefore: number
  readonly tokensAfter: number
  /** Messages summarised (the head), kept (the preserved tail) and archived. */
  readonly summarised: number
  readonly preserved: number
  readonly archived: number
  /** The summary's estimated tokens, its message overhead included. */
  readonly summaryTokens: number
  /** Whether the kept tail starts inside a turn. */
  readonly splitTurn: boolean
  /** Tool call ids whose results were cut to fit the tail budget. */
  readonly truncatedResults: ReadonlyArray<string>
  /** Sections of `SUMMARY_PROMPT` the summary lacks or leaves empty (it is kept all the same). */
  readonly missingSections: ReadonlyArray<SummarySection>
  /**
   * What left the history, itemised (see `Receipt`): the plan's receipt (`planCompaction` gives
   * the same before anything runs), empty when nothing was compacted.
   */
  readonly receipt: Receipt
}

/**
 * The result of {@link compact}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type CompactResult = { readonly messages: Messages; readonly archive: Messages; readonly report: CompactionReport }

const ABORTED = 'The compaction was aborted'

/**
 * Compacts a history: plans the cut (`planCompaction`), builds the transcript of the head
 * (`renderTranscript`), has `summarize` write the summary, and rebuilds the history
 * (`rebuildAfterCompaction`): system prompt, summary, preserved tail. The archive holds every
 * message the new history no longer has. The report gives the tokens before and after, how many
 * messages were summarised, kept and archived, and which summary sections are missing. When the
 * head is empty (everything fits the tail budget) the history is returned as it was, with
 * `compacted: false`, and the summariser is not called. A summariser that answers a provider's
 * compaction boundary (`ProviderSummary`: `anthropicCompaction`, `openAICompaction`) has it kept
 * byte for byte as the summary message, an assistant message (see `rebuildAfterCompaction`),
 * counted by `count`, with no sections to check. Rejects with the signal's reason when aborted,
 * with the summariser's error when it fails, and with an `Error` when it returns a blank summary
 * (or anything but text or a compaction boundary).
 *
 * The summary message keeps the artifact ledger of everything that left the history in its
 * `metadata.ledger` (see `artifactLedger`: files read, written and edited, commands with their
 * status, errors, the user's instructions), whichever summariser wrote it; the ledger of an
 * earlier summary among them is merged in, so the trail is carried from compaction to compaction
 * and never depends on the summary's text. The report's `receipt` itemises what left.
 *
 * @example
 * import { compact, extractiveSummarize } from 'chatfold'
 * declare const history: import('chatfold').Messages
 * const { messages, archive, report } = await compact({ summarize: extractiveSummarize, keepRecentTokens: 20_000 })(history)
 * report.receipt.summarised // the ids of the messages the summary replaced
 *
 * @since 0.1.0
 * @category compaction
 */
export const compact = (opts: CompactOptions) => async (ms: Messages): Promise<CompactResult> => {
  const { signal, onProgress } = opts
  const total = 4
  throwIfAborted(signal, ABORTED)
  const estimate = typeof opts.estimate === 'string' ? await abortable(loadEstimator(opts.estimate), signal, ABORTED) : (opts.estimate ?? smartHeuristic)
  const count = opts.count ?? totalOf(countMessage(estimate))
  const tokensOf = (xs: Messages): number => xs.reduce((a, m) => (isInternal(m) ? a : a + count(m)), 0)

  onProgress?.({ stage: 'plan', done: 0, total })
  const plan = planCompaction({
    ...windowOf(opts),
    estimate,
    count,
    ...(opts.keepRecentTokens === undefined ? {} : { keepRecentTokens: opts.keepRecentTokens }),
    ...(opts.boundary === undefined ? {} : { boundary: opts.boundary }),
  })(ms)
  const tokensBefore = tokensOf(ms)
  const unchanged = (): CompactResult => ({
    messages: ms,
    archive: [],
    report: {
      compacted: false,
      tokensBefore,
      tokensAfter: tokensBefore,
      summarised: 0,
      preserved: ms.length - plan.system.length,
      archived: 0,
      summaryTokens: 0,
      splitTurn: false,
      truncatedResults: [],
      missingSections: [],
      receipt: EMPTY_RECEIPT,
    },
  })
  if (plan.head.length === 0) return unchanged()

  throwIfAborted(signal, ABORTED)
  onProgress?.({ stage: 'transcript', done: 1, total })
  const transcript = renderTranscript(opts.maxResultLen === undefined ? {} : { maxResultLen: opts.maxResultLen })(plan.head)
  if (transcript.trim() === '') return unchanged() // only messages no model sees: nothing to summarise

  throwIfAborted(signal, ABORTED)
  onProgress?.({ stage: 'summarize', done: 2, total })
  const prompt = opts.prompt ?? SUMMARY_PROMPT
  const context: SummarizerContext = {
    prompt,
    history: { system: plan.system, head: plan.head },
    ...(signal === undefined ? {} : { signal }),
    ...(opts.request === undefined ? {} : { request: opts.request }),
  }
  const summary: unknown = await abortable(opts.summarize(transcript, context), signal, ABORTED)
  throwIfAborted(signal, ABORTED)
  const boundary = isProviderSummary(summary)
  if (!boundary && (typeof summary !== 'string' || summary.trim() === '')) throw new Error('Cannot compact: the summariser returned an empty summary')
  const answer: Summary = boundary ? summary : String(summary)

  onProgress?.({ stage: 'rebuild', done: 3, total })
  const rebuilt = rebuildAfterCompaction(answer, typeof answer === 'string' ? estimate(answer) + MESSAGE_OVERHEAD : 0, plan.preserved)(ms)
  const { archive } = rebuilt
  // a provider's boundary is counted as every other message: its message, by `count`
  const summaryMessage = rebuilt.messages[plan.system.length] as Message
  const summaryTokens = typeof answer === 'string' ? estimate(answer) + MESSAGE_OVERHEAD : count(summaryMessage)
  // the artifact ledger of everything that left rides on the summary, whoever wrote it (metadata: no model reads it, no token is spent)
  const withLedger: Message = isEmptyLedger(plan.ledger)
    ? summaryMessage
    : { ...summaryMessage, metadata: { ...summaryMessage.metadata, [LEDGER_KEY]: plan.ledger } }
  const summaryOut: Message = typeof answer === 'string' ? withLedger : { ...withLedger, tokens: { total: summaryTokens } }
  const messages = summaryOut === summaryMessage ? rebuilt.messages : rebuilt.messages.map((m) => (m === summaryMessage ? summaryOut : m))
  const problems = typeof answer === 'string' ? validateSummary(answer) : right(answer)
  return {
    messages,
    archive,
    report: {
      compacted: true,
      tokensBefore,
      tokensAfter: tokensOf(messages),
      summarised: plan.head.length,
      preserved: plan.preserved.length,
      archived: archive.length,
      summaryTokens,
      splitTurn: plan.splitTurn,
      truncatedResults: plan.truncatedResults,
      missingSections: problems._tag === 'Left' ? [...problems.left.missing, ...problems.left.empty] : [],
      receipt: plan.receipt,
    },
  }
}
