/**
 * The synchronous estimators: characters / 4, and a heuristic that knows what text is made of.
 *
 * @module
 */
import type { Estimator } from './message-tokens.ts'
import * as kinds from './_non-ascii.ts'

// the kinds of characters outside ASCII and their weights, as local bindings for the scanner's loop
const { ALPHA, astralWeight, INDIC, LATIN, MARK, SPACE, SURROGATE, SYMBOL, SYMBOL_REPEAT, THAI, WEIGHT, WORD_START } = kinds
const kindTable = kinds.kinds

// --- heuristics ---

/**
 * The classic estimate: characters / 4, rounded up, as most peers use. Instant, and off by a
 * content-dependent factor (measured against `o200k_base` on a coding-agent history: code about
 * −5%, JSON −25%, logs −40%, CJK −65%, English prose +40%); see {@link smartHeuristic}.
 *
 * @example
 * import { heuristic } from 'chatfold/tokens'
 * heuristic('Hello, world!') // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const heuristic: Estimator = (text) => Math.ceil(text.length / 4)

// Weights of the per-content-kind heuristic for ASCII, fitted (least squares on relative error)
// against o200k_base over code, JSON, logs, English prose, CJK and European-language text, then
// raised where a content class read under it (see `sample/content-classes.ts`).
const W_WORD = 1 // per run of ASCII letters
const LONG_WORD = 12
const W_LONG_WORD = 0.33 // per letter past LONG_WORD
const W_CAMEL = 0.78 // per lower-to-upper case change inside a word
const W_DIGITS = 1.25 // per group of up to three digits
const W_BREAK = 1.55 // per line break, its indentation included
const W_BREAK_AFTER_PUNCT = 0.9 // per line break right after punctuation, which the tokenizer joins to it
const W_SPACES = 1.65 // per run of two or more spaces inside a line
const W_PUNCT = 0.92 // per run of ASCII punctuation
const W_SPACE_DIGIT = 0.35 // per space before a number: the tokenizer does not join them
const LONG_RUN = 16 // punctuation or space runs past this cost a little per character
const W_LONG_PUNCT = 1 / 16
const W_LONG_SPACES = 1 / 32
const W_TABS = 1 // per run of tabs inside a line
// Runs of letters, digits and `+/=_-` of BLOB characters or more that mix digits with letters are
// random data (base64, hex, keys, hashes), which the tokenizer cuts into short pieces: they cost at
// least this much a character.
const BLOB = 16
const W_BASE64 = 0.72 // mixed case and digits
const W_HEX = 0.6 // hex digits only

// ASCII classes of the heuristic's scanner: 0 control (tab, CR, …), 1 lower-case letter, 2 upper-case
// letter, 3 digit, 4 space, 5 line feed, 6 punctuation; 7 stands for "start of text or non-ASCII".
const ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++)
  ASCII[c] = c >= 97 && c <= 122
    ? 1
    : c >= 65 && c <= 90
    ? 2
    : c >= 48 && c <= 57
    ? 3
    : c === 32
    ? 4
    : c === 10
    ? 5
    : (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)
    ? 6
    : 0

// Bits of what a blob run holds: lower-case, upper-case, digit, a letter that is not a hex digit;
// BLOB_BITS has them for each ASCII character, B_IN for one that may be in a blob (0: it ends one).
const B_LOWER = 1
const B_UPPER = 2
const B_DIGIT = 4
const B_NOT_HEX = 8
const B_IN = 16
const BLOB_BITS = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  const k = ASCII[c] as number
  BLOB_BITS[c] = k === 1
    ? B_IN | B_LOWER | (c > 102 ? B_NOT_HEX : 0)
    : k === 2
    ? B_IN | B_UPPER | (c > 70 ? B_NOT_HEX : 0)
    : k === 3
    ? B_IN | B_DIGIT
    : c === 43 || c === 47 || c === 61 || c === 95 || c === 45
    ? B_IN
    : 0
}

/** What a blob run costs at least: 0 when it is not one. */
const blobFloor = (length: number, bits: number): number => {
  if (length < BLOB || (bits & B_DIGIT) === 0) return 0
  if ((bits & (B_LOWER | B_UPPER)) === (B_LOWER | B_UPPER)) return length * W_BASE64
  if ((bits & B_NOT_HEX) === 0 && (bits & (B_LOWER | B_UPPER)) !== 0) return length * W_HEX
  return 0
}

/**
 * A synchronous estimate that knows what text is made of, and reads a little over `o200k_base`
 * rather than under it: one pass counts words (and their letters past twelve), case changes inside
 * identifiers, digit groups, punctuation runs, line breaks, runs of random-looking letters and
 * digits (base64, hex), and each character outside ASCII by what the tokenizer costs its kind (the
 * letters of each script, CJK ideographs and Hangul syllables by whether they are one token,
 * emoji, symbols, and characters outside the BMP at their UTF-8 bytes). On every content class of
 * a tool's output (prose, code, JSON, logs, base64, hex, emoji, CJK common and rare, Arabic,
 * Devanagari, Thai, Cyrillic, Korean, whitespace, symbols) it reads at least 0.97 of `o200k_base`,
 * and on average 1–21% over (`npm run bench tokens` prints it per class); characters / 4 reads
 * 0.2–0.5 of it on emoji and rare CJK. No ranks to load. An estimate of a total, not of a short
 * string; text of random letters with no words reads under.
 *
 * @example
 * import { smartHeuristic } from 'chatfold'
 * smartHeuristic('{"id": 12345, "ok": true}')
 *
 * @since 0.1.0
 * @category tokens
 */
export const smartHeuristic: Estimator = (text) => {
  let tokens = 0
  let prev = 7 // class of the previous ASCII character (7: start of text, or not ASCII)
  let run = 0 // length of the current run of that class
  let indent = true // inside the indentation at the start of a line (or of the text)
  let wide = 0 // kind of the previous character outside ASCII (0: it was ASCII)
  let last = -1 // the previous character outside ASCII
  let blob = 0 // length of the current run of blob characters
  let blobBits = 0
  let blobStart = 0 // the tokens before it
  let kind: Uint8Array | undefined // the kinds of characters outside ASCII, fetched at the first one
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c >= 128) {
      if (blob >= BLOB) tokens = Math.max(tokens, blobStart + blobFloor(blob, blobBits))
      blob = 0
      indent = false
      kind ??= kindTable()
      let k = kind[c] as number
      if (k === SURROGATE) {
        const d = c <= 0xdbff && i + 1 < n ? text.charCodeAt(i + 1) : 0
        if (d >= 0xdc00 && d <= 0xdfff) {
          const cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000
          tokens += astralWeight(cp)
          last = cp
          i++
        } else {
          tokens += 1 // a lone half: the replacement character
          last = c
        }
        wide = SURROGATE
        prev = 7
        continue
      }
      if (k === LATIN || (k === MARK && (prev === 1 || prev === 2 || wide === LATIN))) {
        // a letter of a Latin word (or a mark on it): the word goes on
        if (prev !== 1 && prev !== 2 && wide !== LATIN) {
          tokens += W_WORD
          run = 1
        } else run++
        tokens += WEIGHT[LATIN] as number
        k = LATIN
        prev = 1
      } else {
        if (k === MARK) k = wide === ALPHA || wide === INDIC || wide === THAI ? wide : SYMBOL
        if (k === SPACE) tokens += wide === SPACE ? 0 : (WEIGHT[SPACE] as number)
        else if (k === SYMBOL && c === last) tokens += SYMBOL_REPEAT
        else {
          tokens += WEIGHT[k] as number
          if ((k === ALPHA || k === INDIC || k === THAI) && wide !== k) tokens += WORD_START
        }
        prev = 7
      }
      wide = k
      last = c
      continue
    }
    if (wide !== 0) {
      wide = 0
      last = -1
    }
    const k = ASCII[c] as number
    const bb = BLOB_BITS[c] as number
    if (bb !== 0) {
      if (blob === 0) {
        blobStart = tokens
        blobBits = 0
      }
      blob++
      blobBits |= bb
    } else if (blob > 0) {
      if (blob >= BLOB) tokens = Math.max(tokens, blobStart + blobFloor(blob, blobBits))
      blob = 0
    }
    if (k === 1 || k === 2) {
      if (prev === 1 || prev === 2) {
        if (prev === 1 && k === 2) tokens += W_CAMEL
        if (++run > LONG_WORD) tokens += W_LONG_WORD
      } else {
        tokens += W_WORD
        run = 1
      }
    } else if (k === prev) {
      run++
      if (k === 3) {
        if (run % 3 === 1) tokens += W_DIGITS
      } else if (k === 4) {
        if (!indent) tokens += run === 2 ? W_SPACES : run > LONG_RUN ? W_LONG_SPACES : 0
        else if (run > LONG_RUN) tokens += W_LONG_SPACES
      } else if (k === 6) {
        if (run > LONG_RUN) tokens += W_LONG_PUNCT
      } else if (k === 5) tokens += W_BREAK
      continue
    } else {
      const single = run === 1
      run = 1
      if (k === 3) tokens += prev === 4 && single ? W_DIGITS + W_SPACE_DIGIT : W_DIGITS
      else if (k === 6) tokens += W_PUNCT
      else if (k === 0 && c === 9 && !indent) tokens += W_TABS
      else if (k === 5) {
        tokens += prev === 6 ? W_BREAK_AFTER_PUNCT : W_BREAK
        indent = true
        prev = 5
        continue
      }
    }
    if (k !== 4 && !(k === 0 && c === 9)) indent = false
    prev = k
  }
  if (blob >= BLOB) tokens = Math.max(tokens, blobStart + blobFloor(blob, blobBits))
  return Math.ceil(tokens)
}
