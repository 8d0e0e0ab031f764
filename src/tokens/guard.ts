/**
 * The run guard: any exact counter made safe on hostile text (never throws, linear time).
 *
 * @module
 */
import type { Estimator } from '../messages/prune.ts'
import { DIGIT, runClassAt } from './classes.ts'
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
  const size = /[^\x00-\x7f]/.test(run) ? RUN / 4 : RUN
  const bounds: number[] = [0]
  for (let at = 0; at < run.length; ) bounds.push((at = chunkEnd(run, at, size)))
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

const STRIDE = RUN / 2

/**
 * Whether the text may hold a run of one class longer than `RUN`, looking at every `STRIDE`th
 * character only: such a run covers two consecutive sample points with nothing else between them,
 * so when no two consecutive samples are joined by a run, there is none (and the text is counted
 * whole). Ordinary text is cleared at a fraction of a full scan.
 */
const mayHaveLongRun = (text: string): boolean => {
  let prev = -1
  for (let p = 0; p < text.length; p += STRIDE) {
    const k = runClassAt(text, p)
    if (k === prev && k !== DIGIT) {
      let i = p - 1
      while (i > p - STRIDE && runClassAt(text, i) === k) i--
      if (i === p - STRIDE) return true
    }
    prev = k
  }
  return false
}

/**
 * Makes any exact counter safe on hostile text: it never throws (a throw or a non-finite answer
 * falls back to characters / 4) and its time stays linear in the text. BPE tokenizers such as
 * gpt-tokenizer merge each pre-token in quadratic time, so one 50,000-character run of a single
 * letter takes them 2–3 s; here every run of one character class (letters, punctuation,
 * whitespace) longer than 256 characters is counted in 256-character chunks, and a run longer
 * than eight chunks is counted from eight evenly spaced chunks and scaled to its length.
 *
 * The error this adds is at most about one token per chunk boundary (under 1% of the run) for
 * chunked runs, and for sampled runs the difference between the run and its samples: nil for
 * repetitive runs (one letter, base64 of zeroed bytes, whitespace), a few percent for random
 * letters. Text without such runs is counted exactly, in one call.
 *
 * @example
 * import { guardEstimator } from 'chatfold'
 * const safe = guardEstimator((text) => text.split(/\s+/).length)
 * safe('a'.repeat(50_000))
 *
 * @since 0.1.0
 * @category tokens
 */
export const guardEstimator =
  (count: (text: string) => number): Estimator =>
  (text) => {
    const n = text.length
    if (n <= RUN || !mayHaveLongRun(text)) return safely(count, text)
    let total = 0
    let from = 0 // start of the text not counted yet
    let runStart = 0
    let runClass = -1
    for (let i = 0; i <= n; i++) {
      const k = i === n ? -1 : runClassAt(text, i)
      if (k === runClass) continue
      if (i - runStart > RUN && runClass !== DIGIT) {
        total += safely(count, text.slice(from, runStart)) + countRun(count, text.slice(runStart, i))
        from = i
      }
      runStart = i
      runClass = k
    }
    return from === 0 ? safely(count, text) : total + safely(count, text.slice(from))
  }
