/**
 * The command line's start-up and a whole `stats`, as a person runs them: `node bin/chatfold.mjs`
 * from the built package (dist/, built first), each run a new process, timed from spawn to exit.
 * The history is a generated coding session of about 3 MB (chatfold JSONL), each assistant reply
 * carrying a usage record as the session-file readers give them. `node -e 0` is the floor: what
 * Node itself takes to start and stop.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type Message, toJSONL } from '../../src/mod.ts'
import { sampleSession } from '../sample.ts'
import { spread, table } from './lib.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const RUNS = 9

/** A sample session of at least `bytes` bytes of JSONL, its replies with a usage record. */
const session = (bytes: number): string => {
  let n = 1_000
  for (;;) {
    let context = 0
    const ms = sampleSession({ messages: n, seed: 7 }).map((m): Message => {
      if (m.role !== 'assistant') return m
      const output = 40 + (m.parts.length * 37) % 400
      const u = { input: 3, output, cacheRead: context, cacheWrite: 900 }
      context += 900 + output
      return { ...m, metadata: { ...(m.metadata ?? {}), usage: u } }
    })
    const text = toJSONL(ms)
    if (text.length >= bytes) return text
    n = Math.ceil((n * bytes) / text.length) + 20
  }
}

/** Wall time of one process, in milliseconds; throws when it fails. */
const time = (args: ReadonlyArray<string>): number => {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, [...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
  const t = performance.now() - t0
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`)
  return t
}

export default async function cliBench(): Promise<void> {
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  if (build.status !== 0) throw new Error('npm run build failed')
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-bench-'))
  try {
    const text = session(3_000_000)
    const file = join(dir, 'session.jsonl')
    writeFileSync(file, text)
    const bin = join(root, 'bin', 'chatfold.mjs')
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
      ['node -e 0 (Node alone)', ['-e', '0']],
      ['chatfold --version', [bin, '--version']],
      ['chatfold --help', [bin, '--help']],
      ['chatfold stats FILE (o200k_base)', [bin, 'stats', file]],
      ['chatfold stats FILE --encoding heuristic', [bin, 'stats', file, '--encoding', 'heuristic']],
      ['chatfold render FILE --format html', [bin, 'render', file, '--format', 'html', '-o', join(dir, 'page.html')]],
    ]
    const samples = cases.map(() => [] as number[])
    // rounds over every case, so that a busy moment of the machine falls on all of them alike
    for (const [, args] of cases) time(args)
    for (let i = 0; i < RUNS; i++) cases.forEach(([, args], j) => samples[j]?.push(time(args)))
    table(
      `Command line, from the built package: ms per process, median [min–max] of ${RUNS} (history: ${(text.length / 1e6).toFixed(2)} MB, ${text.split('\n').length - 1} messages)`,
      ['command', 'ms'],
      cases.map(([name], j) => [name, spread(samples[j] ?? [])]),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
