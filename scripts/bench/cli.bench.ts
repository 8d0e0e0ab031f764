/**
 * The command line's start-up and a whole `stats`, as a person runs them: `node bin/chatfold.mjs`
 * from the built package (dist/, built first), each run a new process, timed from spawn to exit.
 * The history is a generated coding session of about 3 MB (chatfold JSONL), each assistant reply
 * carrying a usage record as the session-file readers give them. `node -e 0` is the floor: what
 * Node itself takes to start and stop. Besides the wall time, each process reports the CPU time
 * it used (user + system, all its threads, read by a preloaded module at exit), which a machine
 * busy with other work stretches much less than the wall time.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { toJSONL } from '../../src/history/codec.ts'
import { type Message } from '../../src/message/message.ts'
import { sampleSession } from '../../sample/session.ts'
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

/** Preloaded into each process: writes its CPU time (ms, user + system) to file descriptor 3 at exit. */
const CPU_REPORT = `process.on('exit', () => { const c = process.cpuUsage(); require('node:fs').writeSync(3, String((c.user + c.system) / 1000)) })\n`

/** Wall and CPU time of one process, in milliseconds; throws when it fails. */
const time = (preload: string, args: ReadonlyArray<string>): { readonly wall: number; readonly cpu: number } => {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, ['--require', preload, ...args], { cwd: root, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] })
  const wall = performance.now() - t0
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString()}`)
  return { wall, cpu: Number(r.output[3]?.toString() ?? Number.NaN) }
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
    const preload = join(dir, 'cpu-report.cjs')
    writeFileSync(preload, CPU_REPORT)
    const walls = cases.map(() => [] as number[])
    const cpus = cases.map(() => [] as number[])
    // rounds over every case, so that a busy moment of the machine falls on all of them alike
    for (const [, args] of cases) time(preload, args)
    for (let i = 0; i < RUNS; i++)
      cases.forEach(([, args], j) => {
        const t = time(preload, args)
        walls[j]?.push(t.wall)
        cpus[j]?.push(t.cpu)
      })
    table(
      `Command line, from the built package: ms per process, median [min–max] of ${RUNS} (history: ${(text.length / 1e6).toFixed(2)} MB, ${
        text.split('\n').length - 1
      } messages; load average before: ${loadavg()[0]?.toFixed(1)})`,
      ['command', 'wall ms', 'CPU ms (user + system)'],
      cases.map(([name], j) => [name, spread(walls[j] ?? []), spread(cpus[j] ?? [])]),
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
