/**
 * What every model summariser shares: the request as a system prompt and a transcript, and the
 * summary check with one more attempt when the model leaves a section out.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Summarizer } from '../compaction/compact.ts'
import { validateSummary } from '../compaction/summary.ts'
import { wholeOption } from '../internal/number.ts'

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
}

/** One turn of the conversation with the model that writes the summary. */
export type SummaryTurn = { readonly role: 'user' | 'assistant'; readonly content: string }

/** Asks the model: the system prompt, the turns so far, the abort signal; resolves to its text. */
export type AskModel = (request: { readonly system: string; readonly turns: ReadonlyArray<SummaryTurn>; readonly signal?: AbortSignal; readonly maxOutputTokens: number }) => Promise<string>

const missingNote = (missing: ReadonlyArray<string>): string =>
  `Your summary lacks these sections, or leaves them empty: ${missing.join(', ')}. Answer again with all six sections as "## " headings, in order, and "- none" under a section with nothing to say.`

/**
 * A summariser from a function that asks a model: `SUMMARY_PROMPT` (or the prompt `compact` passes)
 * as the system prompt, the transcript as the user message; a summary that fails `validateSummary`
 * is asked for again, up to `attempts` times, then rejected.
 *
 * @example
 * import { modelSummarizer } from 'chatfold/summarize/ai-sdk'
 * const summarize = modelSummarizer(async ({ system, turns }) => `## Goal\n- echo ${turns.length}`)
 *
 * @since 0.1.0
 * @category compaction
 */
export const modelSummarizer =
  (ask: AskModel, options: ModelSummarizerOptions = {}): Summarizer =>
  async (transcript, context) => {
    const attempts = wholeOption(options.attempts, { fallback: 2, min: 1 })
    const maxOutputTokens = wholeOption(options.maxOutputTokens, { fallback: 4_096, min: 1 })
    const turns: SummaryTurn[] = [{ role: 'user', content: transcript }]
    let missing: ReadonlyArray<string> = []
    for (let i = 0; i < attempts; i++) {
      context.signal?.throwIfAborted()
      const answer = await ask({ system: context.prompt, turns: [...turns], maxOutputTokens, ...(context.signal === undefined ? {} : { signal: context.signal }) })
      const checked = validateSummary(answer)
      if (E.isRight(checked)) return checked.right
      missing = [...checked.left.missing, ...checked.left.empty]
      turns.push({ role: 'assistant', content: answer }, { role: 'user', content: missingNote(missing) })
    }
    throw new Error(`Cannot summarise: after ${attempts} attempt${attempts === 1 ? '' : 's'} the summary still lacks ${missing.join(', ')}`)
  }
