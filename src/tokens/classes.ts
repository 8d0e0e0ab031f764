/**
 * Character classes shared by the run guard and the heuristic (private: not exported from the
 * package).
 *
 * @module
 */

export const WS = 0
export const LETTER = 1
export const DIGIT = 2
export const PUNCT = 3
export const CJK = 4

/** The class of a character, as the run guard and the heuristic see it. */
export const classOf = (c: number): number => {
  if (c < 128) {
    if (c >= 97 ? c <= 122 : c >= 65 ? c <= 90 : false) return LETTER
    if (c >= 48 && c <= 57) return DIGIT
    if (c === 32 || (c >= 9 && c <= 13)) return WS
    return PUNCT
  }
  if (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000) return WS
  if ((c >= 0x2010 && c <= 0x205e) || (c >= 0x3001 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65)) return PUNCT
  if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff66 && c <= 0xffdc)) return CJK
  return LETTER
}

const ASCII_CLASS = new Int8Array(128)
for (let c = 0; c < 128; c++) ASCII_CLASS[c] = classOf(c)

/** The class of the character at `i` (a table lookup for ASCII). */
export const classAt = (s: string, i: number): number => {
  const c = s.charCodeAt(i)
  return c < 128 ? (ASCII_CLASS[c] as number) : classOf(c)
}

/**
 * The class of the character at `i` as a tokenizer's pre-tokens see it: CJK is a letter (a run of
 * CJK and Latin letters is one pre-token).
 */
export const runClassAt = (s: string, i: number): number => {
  const k = classAt(s, i)
  return k === CJK ? LETTER : k
}
