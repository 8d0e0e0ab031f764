/**
 * The compaction transcript: the head of a history as labelled lines a model can summarise.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { forCompaction } from '../history/views.ts'
import { renderTranscriptLines } from '../history/render.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'
import { PREVIOUS_SUMMARY } from './_previous-summary.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
import { type ProviderPart } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'

/**
 * Options of {@link renderTranscript}.
 *
 * @since 0.1.0
 * @category compaction
 */
export type TranscriptOptions = {
  /** Tool results are cut to this many characters; default 2,000. */
  readonly maxResultLen?: number
}

const summaryText = (m: Message): string => {
  let s = ''
  for (const p of m.parts) if (p.type === 'text') s += p.text
  return s.trim()
}

/**
 * What a provider's compaction boundary says: Anthropic's summary text, or, for an opaque one
 * (OpenAI's encrypted item), a line saying that the earlier history was compacted by that provider
 * and cannot be read here.
 */
const boundaryText = (p: ProviderPart): string => {
  const content = isObject(p.data) ? p.data['content'] : undefined
  if (typeof content === 'string' && content.trim() !== '') return content.trim()
  return `(the earlier history was compacted by ${p.provider}; its summary is opaque and cannot be read here)`
}

/**
 * The head of a history as a transcript for a summariser: `forCompaction` (normal messages only,
 * no reasoning, tool results cut to `maxResultLen` characters) then `renderTranscriptLines` on each
 * message, one block per message. A previous compaction summary in the head is passed as such,
 * first, under `[Previous summary]:`, so that the new summary extends it rather than summarising
 * a summary as if the user had said it; so is a provider's compaction boundary (its summary text,
 * or a line saying it is opaque).
 *
 * @example
 * import { renderTranscript } from 'chatfold/compaction'
 * import { textMessage } from 'chatfold/message'
 * renderTranscript({ maxResultLen: 2_000 })([textMessage('user', 'Fix the test')]) // '[User]: Fix the test'
 *
 * @since 0.1.0
 * @category compaction
 */
export const renderTranscript = (opts: TranscriptOptions) => (head: Messages): string => {
  const max = opts.maxResultLen ?? 2_000
  const summaries: string[] = []
  const blocks: string[] = []
  for (const m of forCompaction(max)(head)) {
    for (const p of m.parts) if (isCompactionBoundary(p)) summaries.push(`${PREVIOUS_SUMMARY}\n${boundaryText(p)}`)
    if (isCompactionSummary(m)) {
      const text = summaryText(m)
      if (text !== '') summaries.push(`${PREVIOUS_SUMMARY}\n${text}`)
      continue
    }
    const block = renderTranscriptLines(m)
    if (block !== '') blocks.push(block)
  }
  return [...summaries, ...blocks].join('\n')
}
