/**
 * What each command of the built `chatfold` loads (run after `npm run build`): module resolution
 * hooks record every module a process resolves. `--version` loads commander and nothing of
 * chatfold but the program itself; `stats` loads the readers and the token counting, and the
 * tokenizer's tables only when it counts with them; no command loads the server or the compaction
 * it does not run.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toJSONL } from '../../src/history/codec.ts'
import { recordedHistory } from '../support/recorded-history.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const bin = join(root, 'bin', 'chatfold.mjs')
let dir = ''
let file = ''

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'src', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-modules-'))
  file = join(dir, 'history.jsonl')
  writeFileSync(file, toJSONL(recordedHistory()))
  // the hooks run in a thread of their own: each resolved URL is appended to the file LOG names
  writeFileSync(
    join(dir, 'hooks.mjs'),
    "import { appendFileSync } from 'node:fs'\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.LOG, r.url + '\\n'); return r }\n",
  )
  writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)})\n`)
})
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

/** The modules a run of the command resolved, as paths inside the package or `pkg:NAME/…` for a dependency. */
const loaded = (...args: string[]): string[] => {
  const log = join(dir, `log-${args.join('-').replace(/[^\w-]/g, '_')}.txt`)
  writeFileSync(log, '')
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, bin, ...args], {
    env: { ...process.env, LOG: log },
    encoding: 'utf8',
    timeout: 60_000,
  })
  expect(r.status, r.stderr).toBe(0)
  const prefix = `${pathToFileURL(root).href}/`
  const named = (u: string): string | undefined => {
    const dep = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(u)
    if (dep !== null) return `pkg:${dep[1] as string}/${dep[2] as string}`
    return u.startsWith(prefix) ? u.slice(prefix.length) : undefined
  }
  return [...new Set(readFileSync(log, 'utf8').split('\n').flatMap((u) => named(u) ?? []))]
}

describe('what each command loads', () => {
  it('--version: commander and the program, nothing else of chatfold, no fp-ts or io-ts', () => {
    const mods = loaded('--version')
    // the wire APIs' names come from the one table (a module of constants that imports nothing)
    expect(mods.filter((m) => m.startsWith('dist/')).sort()).toEqual([
      'dist/src/adapters/vocabulary.js',
      'dist/src/cli/_exit.js',
      'dist/src/cli/_serve.js',
      'dist/src/cli/main.js',
    ])
    expect(mods.filter((m) => m.startsWith('pkg:')).map((m) => m.split('/')[0])).toEqual(expect.arrayContaining(['pkg:commander']))
    expect(mods.some((m) => m.startsWith('pkg:fp-ts') || m.startsWith('pkg:io-ts') || m.startsWith('pkg:gpt-tokenizer'))).toBe(false)
  })

  it('stats: the readers and counting; the tables only for an encoding that needs them; never the server or compaction', () => {
    const heuristic = loaded('stats', file, '--encoding', 'heuristic')
    expect(heuristic).toContain('dist/src/cli/_stats.js')
    expect(heuristic).toContain('dist/src/tokens/recorded-usage.js')
    expect(heuristic.filter((m) => m.startsWith('pkg:gpt-tokenizer'))).toEqual([])
    const o200k = loaded('stats', file)
    expect(o200k).toContain('pkg:gpt-tokenizer/esm/bpeRanks/o200k_base.js')
    // the session readers mark a compaction the file recorded (compaction/summary, rebuild, system-prefix);
    // the compaction work itself (planning, transcripts, summarisers) never loads
    const marking = /^dist\/src\/compaction\/(summary|rebuild|system-prefix)\.js$/
    for (const mods of [heuristic, o200k]) expect(mods.filter((m) => /^dist\/src\/(node|compaction|store|engine)\//.test(m) && !marking.test(m))).toEqual([])
  })

  it('render --format html: the renderers, and no token counting', () => {
    const mods = loaded('render', file, '--format', 'html', '-o', join(dir, 'page.html'))
    expect(mods).toContain('dist/src/history/render-html.js')
    // node/atomic.js writes -o through a temporary file (it was src/fs/atomic.ts before the Node
    // entries became one); nothing else of node/, and no store or engine, loads
    expect(mods.filter((m) => m.startsWith('pkg:gpt-tokenizer') || (/^dist\/src\/(node|store|engine)\//.test(m) && m !== 'dist/src/node/atomic.js'))).toEqual(
      [],
    )
  })
})
