/**
 * How far a history's estimate reads under what its provider reported (not exported from
 * the package): what the engine's sessions raise their estimate by between reports.
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import type { Message, Messages } from '../message/message.ts'
import { isObject } from '../internal/object.ts'

/** The prompt tokens a message's recorded usage reports: input plus cache reads and writes. */
const promptOf = (m: Message): number | undefined => {
  const usage = m.metadata?.['usage']
  if (!isObject(usage) || typeof usage['input'] !== 'number') return undefined
  const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) && x > 0 ? x : 0)
  const prompt = n(usage['input']) + n(usage['cacheRead']) + n(usage['cacheWrite'])
  return prompt > 0 ? prompt : undefined
}

/**
 * The ratio of what the provider reported to the estimate, over the history's steps: between two
 * reports of the same model, what the prompt grew by against the estimate of the messages added
 * (the system prompt and tools, in both reports, cancel out), the median over steps of at least
 * `minStep` estimated tokens. At least 1: an estimate that reads over is not lowered. 1 when the
 * history records no two such reports.
 */
export const underReadRatio = (count: (m: Message) => number, minStep = 64) => (ms: Messages): number => {
  const ratios: number[] = []
  const last = new Map<string, { readonly reported: number; readonly before: number }>()
  let before = 0
  for (const m of ms) {
    const reported = m.role === 'assistant' && m.kind !== 'display' ? promptOf(m) : undefined
    if (reported !== undefined) {
      const model = m.model ?? ''
      const previous = last.get(model)
      if (previous !== undefined && before - previous.before >= minStep && reported > previous.reported)
        ratios.push((reported - previous.reported) / (before - previous.before))
      last.set(model, { reported, before })
    }
    if (!isInternal(m)) before += count(m)
  }
  if (ratios.length === 0) return 1
  ratios.sort((a, b) => a - b)
  return Math.max(1, ratios[Math.floor(ratios.length / 2)] as number)
}
