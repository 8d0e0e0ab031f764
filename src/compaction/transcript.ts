/**
 * The compaction transcript: the head of a history as labelled lines a model can summarise.
 *
 * @module
 */
import type { Message, Messages } from '../message.ts'
import { forCompaction } from '../messages/views.ts'
import { forTranscript } from '../messages/render.ts'
import { isCompactionSummary } from './summary.ts'
import { PREVIOUS_SUMMARY } from './shared.ts'

/**
 * Options of {@link buildTranscript}.
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
 * The head of a history as a transcript for a summariser: `forCompaction` (normal messages only,
 * no reasoning, tool results cut to `maxResultLen` characters) then `forTranscript` on each
 * message, one block per message. A previous compaction summary in the head is passed as such,
 * first, under `[Previous summary]:`, so that the new summary extends it rather than summarising
 * a summary as if the user had said it.
 *
 * @example
 * import { buildTranscript, textMessage } from 'chatfold'
 * buildTranscript({ maxResultLen: 2_000 })([textMessage('user', 'Fix the test')]) // '[User]: Fix the test'
 *
 * @since 0.1.0
 * @category compaction
 */
export const buildTranscript =
  (opts: TranscriptOptions) =>
  (head: Messages): string => {
    const max = opts.maxResultLen ?? 2_000
    const summaries: string[] = []
    const blocks: string[] = []
    for (const m of forCompaction(max)(head)) {
      if (isCompactionSummary(m)) {
        const text = summaryText(m)
        if (text !== '') summaries.push(`${PREVIOUS_SUMMARY}\n${text}`)
        continue
      }
      const block = forTranscript(m)
      if (block !== '') blocks.push(block)
    }
    return [...summaries, ...blocks].join('\n')
  }
