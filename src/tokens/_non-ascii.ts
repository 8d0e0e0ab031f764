/**
 * What a character outside ASCII costs in `o200k_base`, as the heuristic reads it (private: not
 * exported from the package). A byte-pair tokenizer holds the common characters of each script
 * (and their common words) as tokens and falls back to the pieces of a character's UTF-8 bytes
 * for the rest: an ideograph of CJK Extension B is four tokens, a recent emoji three. Each weight
 * below is at or a little above the mean cost of its class, measured on the classes of
 * `sample/content-classes.ts`, so that the estimate does not fall below the tokenizer's count.
 *
 * @module
 */
import { HAN_ONE_TOKEN, HANGUL_ONE_TOKEN } from './_cjk-table.ts'

/** The kinds of character outside ASCII, each at its own weight (`WEIGHT`). */
export const LATIN = 1 // a letter of the Latin script with its accent: it continues an ASCII word
export const ALPHA = 2 // a letter of an alphabet of two UTF-8 bytes: Greek, Cyrillic, Armenian, Hebrew, Arabic, …
export const INDIC = 3 // a letter or sign of the Brahmic scripts of India and Sri Lanka
export const THAI = 4 // Thai and Lao
export const KANA = 5 // hiragana, katakana
export const HAN = 6 // a CJK ideograph that is one token
export const HAN_BYTES = 7 // a CJK ideograph that is not: two or three byte pieces
export const HANGUL = 8 // a Hangul syllable that is one token
export const HANGUL_BYTES = 9 // one that is not
export const RARE_HAN = 10 // CJK Extension A and compatibility ideographs: three bytes, not merged
export const SPACE = 11 // whitespace outside ASCII: a run of it is a token
export const SYMBOL = 12 // punctuation, symbols, arrows, box drawing, dingbats, fullwidth forms
export const JOINER = 13 // zero-width joiner, variation selectors, combining marks of symbols
export const MARK = 14 // a combining mark after a letter: it continues the word
export const OTHER = 15 // any other character of two UTF-8 bytes
export const OTHER3 = 16 // any other character of three UTF-8 bytes: another script, private use
export const SURROGATE = 17 // half of a character outside the BMP

/** The tokens each kind costs (indexed by kind). A letter's word start is `WORD_START` more. */
export const WEIGHT: Float64Array = new Float64Array(18)
WEIGHT[LATIN] = 0.35
WEIGHT[ALPHA] = 0.26
WEIGHT[INDIC] = 0.32
WEIGHT[THAI] = 0.45
WEIGHT[KANA] = 0.8
WEIGHT[HAN] = 0.75
WEIGHT[HAN_BYTES] = 2.1
WEIGHT[HANGUL] = 0.6
WEIGHT[HANGUL_BYTES] = 2.3
WEIGHT[RARE_HAN] = 3
WEIGHT[SPACE] = 1
WEIGHT[SYMBOL] = 1.6
WEIGHT[JOINER] = 1
WEIGHT[MARK] = 0.5
WEIGHT[OTHER] = 1
WEIGHT[OTHER3] = 1.5

/** Tokens a word of a non-Latin alphabet costs on top of its letters. */
export const WORD_START = 0.2
/** A symbol repeating the one before it (a table border, a rule) costs this much. */
export const SYMBOL_REPEAT = 0.2

const kindOfBmp = (c: number): number => {
  if (c < 0x0800) {
    if (c <= 0xbf) return c === 0xa0 ? SPACE : c === 0xaa || c === 0xb5 || c === 0xba ? LATIN : c === 0x85 ? SPACE : c < 0xa0 ? OTHER : SYMBOL
    if (c === 0xd7 || c === 0xf7) return SYMBOL
    if (c < 0x0250) return LATIN
    if (c < 0x0300) return LATIN // IPA and spacing modifiers
    if (c < 0x0370) return MARK
    return ALPHA
  }
  if (c >= 0x4e00 && c <= 0x9fff) return HAN_ONE_TOKEN[c - 0x4e00] === 1 ? HAN : HAN_BYTES
  if (c >= 0xac00 && c <= 0xd7a3) return HANGUL_ONE_TOKEN[c - 0xac00] === 1 ? HANGUL : HANGUL_BYTES
  if (c >= 0xd800 && c <= 0xdfff) return SURROGATE
  if (c >= 0x0900 && c <= 0x0dff) return INDIC
  if (c >= 0x0e00 && c <= 0x0eff) return THAI
  if (c >= 0x3040 && c <= 0x30ff) return KANA
  if (c >= 0x3400 && c <= 0x4dbf) return RARE_HAN
  if (c >= 0xf900 && c <= 0xfaff) return RARE_HAN
  if (c >= 0x1e00 && c <= 0x1eff) return LATIN
  if (c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff) return SPACE
  if (c === 0x200d || (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0x20d0 && c <= 0x20ff) || (c >= 0x200b && c <= 0x200f)) return JOINER
  if (
    (c >= 0x2000 && c <= 0x2bff) || (c >= 0x2e00 && c <= 0x2e7f) || (c >= 0x3000 && c <= 0x303f) || (c >= 0xfe10 && c <= 0xfe6f) || (c >= 0xff00 && c <= 0xffef)
  ) return SYMBOL
  if (c >= 0x1100 && c <= 0x11ff) return HANGUL_BYTES
  if (c >= 0x3130 && c <= 0x318f) return HANGUL_BYTES
  if (c >= 0x2e80 && c <= 0x2fdf) return RARE_HAN
  if (c >= 0x3100 && c <= 0x33ff) return SYMBOL // bopomofo, enclosed and compatibility CJK
  return OTHER3
}

let table: Uint8Array | undefined

/** The kind of each code unit of 128 or more (indexed by the code unit), filled on first use. */
export const kinds = (): Uint8Array => {
  if (table === undefined) {
    const t = new Uint8Array(65_536)
    for (let x = 128; x < 65_536; x++) t[x] = kindOfBmp(x)
    table = t
  }
  return table
}

/**
 * The tokens of a character outside the BMP: an emoji by its block (two or three tokens, the most
 * its block's characters cost), a skin tone or a regional indicator two, and anything else (CJK
 * Extensions B to H, historic scripts, symbols) its four UTF-8 bytes, as the tokenizer falls back to them.
 */
export const astralWeight = (cp: number): number => {
  if (cp >= 0x1f000 && cp <= 0x1faff) {
    if (cp >= 0x1f3fb && cp <= 0x1f3ff) return 2 // skin tones
    if (cp >= 0x1f1e6 && cp <= 0x1f1ff) return 2 // regional indicators: a flag is two
    if (cp >= 0x1f600 && cp <= 0x1f64f) return 2 // emoticons
    return 3
  }
  return 4
}
