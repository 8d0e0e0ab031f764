/**
 * The run guard: any exact counter made safe on hostile text (never throws, linear time).
 *
 * @module
 */
import type { Estimator } from './message-tokens.ts'
import { longPretokenTest, pretokenClassifier } from './_classes.ts'
import { heuristic } from './heuristic.ts'

// --- guard ---

/** The longest run of one character class an exact counter is given in one piece. */
const RUN = 256
/** Runs of more than this many chunks are sampled rather than counted whole. */
const SAMPLES = 8

const safely = (count: (text: string) => number, text: string): number => {
  if (text === '') return 0
  try {
    const n = count(text)
    return Number.isFinite(n) && n >= 0 ? n : heuristic(text)
  } catch {
    return heuristic(text)
  }
}

/**
 * The end of the chunk that starts at `from`, never between the halves of a surrogate pair. A
 * chunk is `size` characters: `RUN` in an ASCII run, a quarter of that in a run with anything
 * else (up to 4 bytes a character in UTF-8, which is what the merge loop works on).
 */
const chunkEnd = (s: string, from: number, size: number): number => {
  const end = Math.min(s.length, from + size)
  if (end < s.length && end > from + 1) {
    const c = s.charCodeAt(end - 1)
    if (c >= 0xd800 && c <= 0xdbff) return end - 1
  }
  return end
}

const countRun = (count: (text: string) => number, run: string): number => {
  // deno-lint-ignore no-control-regex -- the class is every ASCII character, control ones included
  const size = /[^\x00-\x7f]/.test(run) ? RUN / 4 : RUN
  const bounds: number[] = [0]
  for (let at = 0; at < run.length;) bounds.push(at = chunkEnd(run, at, size))
  const chunks = bounds.length - 1
  if (chunks <= SAMPLES) {
    let total = 0
    for (let j = 0; j < chunks; j++) total += safely(count, run.slice(bounds[j], bounds[j + 1]))
    return total
  }
  // Sample the full chunks (all but the last), scale to their length, then add the last exactly.
  const full = chunks - 1
  const fullEnd = bounds[full] ?? run.length
  let tokens = 0
  let chars = 0
  for (let j = 0; j < SAMPLES; j++) {
    const k = Math.round((j * (full - 1)) / (SAMPLES - 1))
    const from = bounds[k] ?? 0
    const to = bounds[k + 1] ?? fullEnd
    tokens += safely(count, run.slice(from, to))
    chars += to - from
  }
  return (chars === 0 ? 0 : Math.round((tokens / chars) * fullEnd)) + safely(count, run.slice(fullEnd))
}

/**
 * Makes any exact counter safe on hostile text: it never throws (a throw or a non-finite answer
 * falls back to characters / 4) and its time stays linear in the text. BPE tokenizers merge each
 * pre-token in time quadratic in its length, and a pre-token is a run of letters, of symbols
 * (punctuation, emoji, box drawing, any mix of them) or of whitespace: one 50,000-character run
 * takes them seconds. Here every run of characters that could be one pre-token (they share a
 * class: letters and marks, symbols and line breaks, or whitespace, U+FEFF included; each class
 * on its own, so a line break belongs to a run of symbols and to one of whitespace) longer than
 * 256 characters is counted in chunks of 256 (64 where it holds anything outside ASCII), and a run
 * longer than eight chunks is counted from eight evenly spaced chunks and scaled to its length.
 * `loadEstimator` needs none of this: its encodings count long pre-tokens exactly.
 *
 * The error this adds is at most about one token per chunk boundary (under 1% of the run) for
 * chunked runs, and for sampled runs the difference between the run and its samples: nil for
 * repetitive runs (one letter, base64 of zeroed bytes, whitespace, a table border), a few percent
 * for random letters. Text without such runs is counted exactly, in one call.
 *
 * @example
 * import { guardEstimator } from 'chatfold/tokens'
 * const safe = guardEstimator((text) => text.split(/\s+/).length)
 * safe('|─'.repeat(50_000))
 *
 * @since 0.1.0
 * @category tokens
 */
export const guardEstimator = (count: (text: string) => number): Estimator => {
  const mayHaveLongRun = longPretokenTest(RUN / 2)
  const bitsAt = pretokenClassifier()
  return (text) => {
    if (text.length <= RUN || !mayHaveLongRun(text)) return safely(count, text)
    let total = 0
    let from = 0 // start of the text not counted yet
    for (const [start, end] of longRuns(text, bitsAt)) {
      total += safely(count, text.slice(from, start)) + countRun(count, text.slice(start, end))
      from = end
    }
    return from === 0 ? safely(count, text) : total + safely(count, text.slice(from))
  }
}

/** The three pre-token classes, as bits (see `pretokenClassifier`). */
const CLASS_BITS = [1, 2, 4] as const

/**
 * The stretches of `text` that may hold a pre-token longer than `RUN`: every maximal run of
 * characters sharing one class longer than that, for each class on its own (a line break is a
 * symbol and whitespace, half of an astral character a letter and a symbol, so runs of two classes
 * can overlap), overlapping runs merged, in order.
 */
const longRuns = (text: string, bitsAt: (s: string, i: number) => number): ReadonlyArray<readonly [number, number]> => {
  const starts = [-1, -1, -1]
  const runs: Array<[number, number]> = []
  const close = (k: number, end: number): void => {
    const start = starts[k] as number
    if (end - start > RUN) runs.push([start, end])
    starts[k] = -1
  }
  for (let i = 0; i < text.length; i++) {
    const bits = bitsAt(text, i)
    for (let k = 0; k < CLASS_BITS.length; k++) {
      if ((bits & (CLASS_BITS[k] as number)) !== 0) {
        if ((starts[k] as number) < 0) starts[k] = i
      } else if ((starts[k] as number) >= 0) close(k, i)
    }
  }
  for (let k = 0; k < CLASS_BITS.length; k++) if ((starts[k] as number) >= 0) close(k, text.length)
  runs.sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const [start, end] of runs) {
    const last = merged.at(-1)
    if (last !== undefined && start < last[1]) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  return merged
}
