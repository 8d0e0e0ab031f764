/**
 * Whether parts say something: the test a provider applies to content (not reasoning, a finish
 * marker or blank text), without building trimmed strings.
 *
 * @module
 */
import { type Part } from '../message/part-model.ts'

/** Whether a UTF-16 unit is white space as `String.prototype.trim` sees it (WhiteSpace and LineTerminator). */
const isWhite = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/** `s.trim() === ''` without building the trimmed string: usually one look at the first unit. */
export const isBlank = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (!isWhite(s.charCodeAt(i))) return false
  return true
}

/** Whether a part says something a provider would accept as content (not reasoning, a finish marker or blank text). */
export const isSubstantive = (p: Part): boolean =>
  !(p.type === 'reasoning' || p.type === 'finish' || (p.type === 'text' && isBlank((p as { readonly text: string }).text)))

/** Whether any part says something; text is read only when no other part settles it. */
export const hasSubstance = (parts: ReadonlyArray<Part>): boolean => {
  let text = false
  for (let i = 0; i < parts.length; i++) {
    const type = (parts[i] as Part).type
    if (type === 'text') text = true
    else if (type !== 'reasoning' && type !== 'finish') return true
  }
  if (text) { for (let i = 0; i < parts.length; i++) if (isSubstantive(parts[i] as Part)) return true }
  return false
}
