/**
 * `npm run docs`: the API reference, generated from the doc comments with `deno doc --html` (it
 * works offline and reads the same sources JSR will document), one page per entry point, module
 * and export, into `docs/api/`. The entry points are deno.json's `exports`, so a new entry point
 * is documented without touching this script.
 *
 * `npm run docs -- --check` builds into a scratch folder instead and fails on any warning that
 * is not about dependencies' declaration files alone (those, such as `@types/node`'s, are printed
 * and do not fail it).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const check = process.argv.includes('--check')
const manifest = JSON.parse(readFileSync(join(root, 'deno.json'), 'utf8')) as { name: string; version: string; exports: Record<string, string> }
const entries = [...new Set(Object.values(manifest.exports))]
const output = check ? mkdtempSync(join(tmpdir(), 'chatfold-docs-')) : join(root, 'docs', 'api')
if (!check) rmSync(output, { recursive: true, force: true })

const deno = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'deno.cmd' : 'deno')
const run = spawnSync(deno, ['doc', '--html', `--name=chatfold ${manifest.version}`, `--output=${output}`, ...entries], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, NO_COLOR: '1' },
})
const log = `${run.stdout}${run.stderr}`
if (run.status !== 0) {
  console.error(log)
  console.error(`docs: deno doc failed (exit ${run.status ?? run.signal})`)
  process.exit(1)
}

// A warning is its first line plus the `at file:…` lines under it.
const warnings = log.split(/\n(?=Warning )/).filter((w) => w.startsWith('Warning '))
// ours unless every place it names is inside node_modules (a warning naming no place counts as ours)
const places = (w: string): string[] => [...w.matchAll(/at (file:\/\/\S+)/g)].map((m) => m[1] ?? '')
const ours = warnings.filter((w) => places(w).length === 0 || places(w).some((p) => !p.includes('/node_modules/')))
for (const w of ours) console.error(w.trim())
const theirs = warnings.length - ours.length
if (theirs > 0) console.error(`docs: ${theirs} warning(s) about dependencies' declaration files (not the project's; ignored)`)
const pages = readdirSync(output, { recursive: true }).filter((f) => String(f).endsWith('.html')).length
if (check) rmSync(output, { recursive: true, force: true })
if (ours.length > 0) {
  console.error(`docs: ${ours.length} warning(s) about the project's own modules`)
  process.exit(1)
}
console.log(`docs: ${pages} pages for ${entries.length} entry points${check ? ' (checked, not kept)' : ' in docs/api/ (open docs/api/index.html)'}`)
