/**
 * One message made lighter for the model: tool results cut, reasoning stripped. Each returns the
 * message itself when nothing changes, and makes a new parts array at its final size.
 *
 * @module
 */
import { type Part, type ToolResultPart } from '../message/part-model.ts'
import type { Message } from '../message/message.ts'

/**
 * Whether a part is a text tool result longer than `max` (a result of blocks, with an image or a
 * file, is left whole: pruning replaces it as one unit).
 */
const isLongResult = (p: Part, max: number): boolean => p.type === 'tool_result' && typeof p.content === 'string' && p.content.length > max

/** A long result's text (`isLongResult` holds). */
const textOf = (p: Part): string => (p.type === 'tool_result' && typeof p.content === 'string' ? p.content : '')

/** The message with each tool result's content cut by `cut` (a `truncator(max)`); the message itself when none is longer than `max`. */
export const truncateResultsOf = (m: Message, max: number, cut: (s: string) => string): Message => {
  const ps = m.parts
  let parts: Part[] | undefined
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as Part
    if (!isLongResult(p, max)) continue
    parts ??= ps.slice()
    parts[i] = { ...(p as ToolResultPart), content: cut(textOf(p)) }
  }
  return parts === undefined ? m : { ...m, parts }
}

/** The message without reasoning parts; the message itself when it has none. The new parts array is made at its final size. */
export const stripReasoning = (m: Message): Message => {
  const ps = m.parts
  let size = 0
  for (let i = 0; i < ps.length; i++) if ((ps[i] as Part).type !== 'reasoning') size++
  if (size === ps.length) return m
  const parts = new Array<Part>(size)
  let k = 0
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as Part
    if (p.type !== 'reasoning') parts[k++] = p
  }
  return { ...m, parts }
}

/**
 * The message without reasoning and with tool results cut by `cut` (a `truncator(max)`); the
 * message itself when it has neither. The new parts array is made at its final size.
 */
export const compactMessage = (m: Message, max: number, cut: (s: string) => string): Message => {
  const ps = m.parts
  let i = 0
  while (i < ps.length && (ps[i] as Part).type !== 'reasoning' && !isLongResult(ps[i] as Part, max)) i++
  if (i === ps.length) return m
  let size = i
  for (let j = i; j < ps.length; j++) if ((ps[j] as Part).type !== 'reasoning') size++
  const out = new Array<Part>(size)
  for (let j = 0; j < i; j++) out[j] = ps[j] as Part
  let k = i
  for (; i < ps.length; i++) {
    const p = ps[i] as Part
    if (p.type === 'reasoning') continue
    out[k++] = isLongResult(p, max) ? { ...(p as ToolResultPart), content: cut(textOf(p)) } : p
  }
  return { ...m, parts: out }
}
