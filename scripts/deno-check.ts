/**
 * The type check of `npm run test:deno`, two ways:
 *
 * 1. every entry point of deno.json (the JSR manifest), checked with the project's own compiler
 *    options;
 * 2. as a Deno user meets the package from source (what JSR serves): a consumer project of its own
 *    in a scratch folder, whose deno.json has no `compilerOptions` at all (Deno's default libraries
 *    and settings), and one file importing every entry by its name (`chatfold`, `chatfold/ai-sdk`, …).
 *    The consumer's import map sends each name to the source file deno.json exports, and the
 *    package's own dependencies where deno.json maps them; npm packages come from this checkout's
 *    `node_modules` (`"nodeModulesDir": "manual"`), so nothing is downloaded.
 *
 * Exits with 1 when either check fails, printing Deno's diagnostics.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const deno = join(root, 'node_modules', '.bin', process.platform === 'win32' ? 'deno.cmd' : 'deno')

type Manifest = { readonly exports: Readonly<Record<string, string>>; readonly imports: Readonly<Record<string, string>> }
type PackageJson = { readonly dependencies?: Readonly<Record<string, string>>; readonly devDependencies?: Readonly<Record<string, string>> }

const manifest = JSON.parse(readFileSync(join(root, 'deno.json'), 'utf8')) as Manifest
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson

/** The name a user imports an entry by: `chatfold` for `.`, `chatfold/<subpath>` otherwise. */
export const specifierOf = (subpath: string): string => (subpath === '.' ? 'chatfold' : `chatfold/${subpath.slice(2)}`)

/** The consumer's import map: the package's dependencies as deno.json maps them, and each entry to its source. */
export const consumerImports = (m: Manifest, sourceUrl: (path: string) => string): Record<string, string> => {
  const deps = Object.fromEntries(Object.entries(m.imports).filter(([k, v]) => !k.startsWith('chatfold') && !v.startsWith('./')))
  const entries = Object.fromEntries(Object.entries(m.exports).map(([subpath, file]) => [specifierOf(subpath), sourceUrl(file)]))
  return { ...deps, ...entries }
}

/** A file that imports every entry, and uses what it imports (so none is elided). */
export const consumerModule = (m: Manifest): string => {
  const names = Object.keys(m.exports).map(specifierOf)
  return [...names.map((s, i) => `import * as entry${i} from '${s}'`), `console.log(${names.map((_, i) => `entry${i}`).join(', ')})`, ''].join('\n')
}

const run = (args: ReadonlyArray<string>, cwd: string): boolean => {
  const r = spawnSync(deno, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 900_000 })
  if (r.status === 0) return true
  console.error(`deno ${args.join(' ')} (in ${cwd}) failed:\n${r.stdout}${r.stderr}${r.error === undefined ? '' : String(r.error)}`)
  return false
}

const main = (): void => {
  const sources = Object.values(manifest.exports)
  const own = run(['check', ...sources], root)

  const dir = mkdtempSync(join(tmpdir(), 'chatfold-deno-consumer-'))
  let consumer = false
  try {
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
    // with "manual", Deno takes the npm packages a package.json lists from node_modules
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ private: true, type: 'module', dependencies: { ...pkg.dependencies, ...pkg.devDependencies } }, null, 2),
    )
    const imports = consumerImports(manifest, (file) => pathToFileURL(join(root, file)).href)
    writeFileSync(join(dir, 'deno.json'), JSON.stringify({ nodeModulesDir: 'manual', imports }, null, 2))
    writeFileSync(join(dir, 'main.ts'), consumerModule(manifest))
    consumer = run(['check', 'main.ts'], dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  console.log(
    `deno check: ${sources.length} entries with the project's options ${own ? 'pass' : 'FAIL'}; a consumer importing every entry, with Deno's default options ${
      consumer ? 'passes' : 'FAILS'
    }`,
  )
  if (!own || !consumer) process.exit(1)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
