/**
 * Small measuring kit for `npm run bench`: timing with warm-up, medians and percentiles, and a
 * plain-text table. Benchmarks print figures; they never assert a time.
 */
import { sampleSession } from '../../sample/session.ts'
import type { Message } from '../../src/message/message.ts'

export type Stats = { readonly median: number; readonly p95: number; readonly min: number; readonly max: number; readonly runs: number }

export const stats = (samples: ReadonlyArray<number>): Stats => {
  const s = [...samples].sort((a, b) => a - b)
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN
  return { median: at(0.5), p95: at(0.95), min: s[0] ?? Number.NaN, max: s[s.length - 1] ?? Number.NaN, runs: s.length }
}

/** Times `fn` `runs` times after `warmup` untimed runs; milliseconds. */
export const measure = async (fn: () => unknown, opts: { readonly runs?: number; readonly warmup?: number } = {}): Promise<Stats> => {
  const runs = opts.runs ?? 15
  for (let i = 0; i < (opts.warmup ?? 2); i++) await fn()
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    samples.push(performance.now() - t0)
  }
  return stats(samples)
}

export const ms = (x: number): string => (Number.isNaN(x) ? '—' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2))
/** `median [min–max]` of one figure over a bench's runs (`—` when none has it). */
export const spread = (xs: ReadonlyArray<number>): string => {
  const s = stats(xs.filter((x) => !Number.isNaN(x)))
  if (s.runs === 0) return '—'
  return s.runs === 1 || s.min === s.max ? ms(s.median) : `${ms(s.median)} [${ms(s.min)}–${ms(s.max)}]`
}
/** Each run's `xs[i]` against the same run's `ones[i]`, as `min–max` (runs on a shared machine drift together). */
export const pairedRatios = (xs: ReadonlyArray<number>, ones: ReadonlyArray<number>): string => {
  const r = xs.map((x, i) => x / (ones[i] ?? Number.NaN)).filter((x) => !Number.isNaN(x))
  return r.length === 0 ? '—' : `${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)}`
}
export const ratio = (peer: number, ours: number): string => (ours > 0 && Number.isFinite(peer) ? `${(peer / ours).toFixed(1)}×` : '—')

/** Prints a table: a header row, then rows, columns padded. */
export const table = (title: string, header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): void => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: ReadonlyArray<string>) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ')
  console.log(`\n## ${title}\n`)
  console.log(line(header))
  console.log(widths.map((w) => '-'.repeat(w)).join('  '))
  for (const r of rows) console.log(line(r))
}

let cached: Message[] | undefined

/** The 20,000-message coding-agent history every benchmark runs on (generated once per run). */
export const benchHistory = (): Message[] => (cached ??= sampleSession({ messages: 20_000, seed: 42 }))
