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
  if (
    (c >= 0x2010 && c <= 0x205e) || (c >= 0x3001 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) ||
    (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65)
  ) return PUNCT
  if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff66 && c <= 0xffdc)) return CJK
  return LETTER
}

// --- pre-token classes ---

/** A letter or mark: what the letter runs of a pre-token are made of. */
const P_LETTER = 1
/** Neither whitespace, letter nor number (a mark too), or a line break: the symbol runs and their tails. */
const P_SYMBOL = 2
/** Whitespace (U+FEFF included, as `\s` has it). */
const P_SPACE = 4

const LETTER_OR_MARK = /[\p{L}\p{M}]/u
const MARK = /\p{M}/u
const NUMBER = /\p{N}/u
const SPACE = /\s/u

const pretokenBitsOf = (c: number): number => {
  if (c >= 0xd800 && c <= 0xdfff) return P_LETTER | P_SYMBOL // half of an astral character: either
  if (c === 10 || c === 13) return P_SPACE | P_SYMBOL
  const ch = String.fromCharCode(c)
  if (LETTER_OR_MARK.test(ch)) return MARK.test(ch) ? P_LETTER | P_SYMBOL : P_LETTER
  if (NUMBER.test(ch)) return 0
  return SPACE.test(ch) ? P_SPACE : P_SYMBOL
}

/**
 * The pre-token class bits of the code unit at `i` (letter or mark 1, symbol or line break 2,
 * whitespace 4; 0 for a number; both halves of an astral character count as letter and symbol):
 * two characters can be in one long pre-token only if they share a bit. Each classifier fills
 * its own table on first sight of each code unit.
 */
export const pretokenClassifier = (): (s: string, i: number) => number => {
  const bits = new Uint8Array(65_536) // class bits + 8; 0 for not classified yet
  return (s, i) => {
    const c = s.charCodeAt(i)
    const b = bits[c] as number
    return b !== 0 ? b - 8 : (bits[c] = pretokenBitsOf(c) + 8) - 8
  }
}

/**
 * A test for pre-tokens longer than about `2 × stride` characters, as the split patterns of
 * `o200k_base` and `cl100k_base` cut text: a run of letters and marks (after one prefix
 * character), a run of symbols (after an optional space, with a tail of line breaks and slashes),
 * a run of whitespace, up to three digits, a contraction. Any pre-token of `2 × stride + 4`
 * characters or more holds a run of `2 × stride` characters sharing one of the three classes, so
 * looking at every `stride`th character (and back from it when two in a row share a class) finds
 * it; it may also report a long run that the pattern cuts (never the reverse). Each scanner
 * classifies characters through its own table, filled on first sight of each code unit.
 */
export const longPretokenTest = (stride: number): (text: string) => boolean => {
  const at = pretokenClassifier()
  return (text) => {
    let prev = 0
    for (let p = 0; p < text.length; p += stride) {
      const b = at(text, p)
      let common = b & prev
      for (let i = p - 1; common !== 0 && i > p - stride; i--) common &= at(text, i)
      if (common !== 0) return true
      prev = b
    }
    return false
  }
}
