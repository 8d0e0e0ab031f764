/**
 * What every model summariser shares: the request, either the conversation's own (its messages,
 * tools and tool choice as sent, the instruction appended as the last user turn, so that the
 * provider reads them from its prompt cache) or a system prompt and a transcript; and the summary
 * check with one more attempt when the model leaves a section out.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Summarizer, SummarizerContext, SummarizerRequest } from '../compaction/compact.ts'
import { validateSummary } from '../compaction/summary.ts'
import { wholeOption } from '../internal/number.ts'
import { type Messages, textMessage } from '../message/message.ts'
import { isToolChoice, isToolDefinition, type ToolChoice, type ToolDefinition } from '../adapters/request.ts'

/**
 * Options every model summariser takes.
 *
 * @since 0.1.0
 * @category compaction
 */
export type ModelSummarizerOptions = {
  /** The most tokens the summary may take; default 4,096. */
  readonly maxOutputTokens?: number
  /**
   * How many times to ask when the answer lacks a section of `SUMMARY_PROMPT` (each retry shows the
   * model its answer and names what is missing); default 2. After the last, the summariser rejects.
   */
  readonly attempts?: number
  /**
   * What the model is sent: `prefix` (the default), the conversation's request as sent when
   * `compact` gives it (`SummarizerContext.request`, as `contextMiddleware` does), with the
   * instruction appended as the last user turn, so that the request shares the conversation's
   * prefix byte for byte and is read from the provider's prompt cache; the transcript when it does
   * not. `transcript`: always the instruction as the system prompt and the transcript as the user
   * message.
   */
  readonly form?: 'prefix' | 'transcript'
}

/** One turn of the conversation with the model that writes the summary. */
export type SummaryTurn = { readonly role: 'user' | 'assistant'; readonly content: string }

/**
 * Asks the model: the system prompt, the turns so far, the abort signal; resolves to its text. With
 * `conversation` (the prefix form), the request is the conversation's (its messages, system prompt
 * included, its tools and tool choice) followed by the turns, and `system` is empty.
 */
export type AskModel = (request: {
  readonly system: string
  readonly turns: ReadonlyArray<SummaryTurn>
  readonly signal?: AbortSignal
  readonly maxOutputTokens: number
  readonly conversation?: SummarizerRequest
  /** Told of the model's answer (its model id and usage), for the compaction's cost (`SummarizerContext.onAnswer`). */
  readonly onAnswer?: SummarizerContext['onAnswer']
}) => Promise<string>

/**
 * What follows the summary instruction when the model is sent the conversation itself rather than
 * a transcript.
 *
 * @example
 * import { PREFIX_INSTRUCTION } from 'chatfold/summarize/ai-sdk'
 * PREFIX_INSTRUCTION.startsWith('The transcript') // true
 *
 * @since 0.1.0
 * @category compaction
 */
export const PREFIX_INSTRUCTION =
  'The transcript is this conversation, every message above this one. Do not call a tool and do not go on with the work: answer with the summary alone.'

const missingNote = (missing: ReadonlyArray<string>): string =>
  `Your summary lacks these sections, or leaves them empty: ${
    missing.join(', ')
  }. Answer again with all six sections as "## " headings, in order, and "- none" under a section with nothing to say.`

/**
 * A summariser from a function that asks a model: given the conversation's request
 * (`SummarizerContext.request`) and unless `form` is `transcript`, that request followed by
 * `SUMMARY_PROMPT` (or the prompt `compact` passes) and `PREFIX_INSTRUCTION` as the last user turn;
 * else the prompt as the system prompt and the transcript as the user message. A summary that fails
 * `validateSummary` is asked for again, up to `attempts` times, then rejected.
 *
 * @example
 * import { modelSummarizer } from 'chatfold/summarize/ai-sdk'
 * const summarize = modelSummarizer(async ({ system, turns }) => `## Goal\n- echo ${turns.length}`)
 *
 * @since 0.1.0
 * @category compaction
 */
export const modelSummarizer = (ask: AskModel, options: ModelSummarizerOptions = {}): Summarizer => async (transcript, context) => {
  const attempts = wholeOption(options.attempts, { fallback: 2, min: 1 })
  const maxOutputTokens = wholeOption(options.maxOutputTokens, { fallback: 4_096, min: 1 })
  const conversation = options.form === 'transcript' ? undefined : context.request
  const turns: SummaryTurn[] = [{ role: 'user', content: conversation === undefined ? transcript : `${context.prompt}\n\n${PREFIX_INSTRUCTION}` }]
  let missing: ReadonlyArray<string> = []
  for (let i = 0; i < attempts; i++) {
    context.signal?.throwIfAborted()
    const answer = await ask({
      system: conversation === undefined ? context.prompt : '',
      turns: [...turns],
      maxOutputTokens,
      ...(context.signal === undefined ? {} : { signal: context.signal }),
      ...(conversation === undefined ? {} : { conversation }),
      ...(context.onAnswer === undefined ? {} : { onAnswer: context.onAnswer }),
    })
    const checked = validateSummary(answer)
    if (E.isRight(checked)) return checked.right
    missing = [...checked.left.missing, ...checked.left.empty]
    turns.push({ role: 'assistant', content: answer }, { role: 'user', content: missingNote(missing) })
  }
  throw new Error(`Cannot summarise: after ${attempts} attempt${attempts === 1 ? '' : 's'} the summary still lacks ${missing.join(', ')}`)
}

/** The messages of a prefix-form request: the conversation's, then the summariser's turns. */
export const prefixMessages = (conversation: SummarizerRequest, turns: ReadonlyArray<SummaryTurn>): Messages => [
  ...conversation.messages,
  ...turns.map((t, i) => textMessage(t.role, t.content, { id: `summary-turn-${i}` })),
]

/**
 * The tool definitions and tool choice of a conversation's request, checked; rejects with a
 * `TypeError` naming the first that is not chatfold's.
 */
export const requestTools = (conversation: SummarizerRequest): { readonly tools?: ReadonlyArray<ToolDefinition>; readonly toolChoice?: ToolChoice } => {
  const tools = conversation.tools ?? []
  const bad = tools.findIndex((t) => !isToolDefinition(t))
  if (bad >= 0) throw new TypeError(`Cannot summarise: request.tools[${bad}] is not a tool definition`)
  const choice = conversation.toolChoice
  if (choice !== undefined && !isToolChoice(choice)) throw new TypeError('Cannot summarise: request.toolChoice is not a tool choice')
  return { ...(conversation.tools === undefined ? {} : { tools: tools.filter(isToolDefinition) }), ...(choice === undefined ? {} : { toolChoice: choice }) }
}
