/**
 * The consumer test's tools: the packed package, fresh projects that install it from the tarball
 * (with npm or pnpm, everything else from the registry through the shared npm cache), the guides'
 * examples written into them, type-checked with the project's own installed types and run by Node.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { denoOnly, markdownExamples, typeOnly } from '../../scripts/doctest.ts'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const BIN = join(ROOT, 'node_modules', '.bin')

export type Ran = { readonly stdout: string; readonly stderr: string }

/** Runs a command; rejects with its output when it exits other than 0. */
export const run = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env?: Readonly<Record<string, string>> },
): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()))
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()))
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ stdout, stderr })
      else reject(new Error(`${command} ${args.join(' ')} (in ${options.cwd}) exited ${code ?? signal}:\n${stdout.slice(-3_000)}\n${stderr.slice(-3_000)}`))
    })
  })

/** At most `n` of the jobs given to it at a time (installs: the network and the disk, not the cores, are what they wait on). */
export const limit = (n: number) => {
  let active = 0
  const queue: Array<() => void> = []
  return async <T>(job: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => queue.push(resolve))
    active++
    try {
      return await job()
    } finally {
      active--
      queue.shift()?.()
    }
  }
}

/** A fresh folder for the whole run. */
export const scratch = (): string => mkdtempSync(join(tmpdir(), 'chatfold-consumer-'))

/** `npm pack` of the built package (dist/ comes from `npm run build`, which `npm test` runs before). */
export const pack = async (into: string): Promise<string> => {
  if (!existsSync(join(ROOT, 'dist', 'src', 'mod.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  await run('npm', ['pack', '--pack-destination', into, '--silent'], { cwd: ROOT })
  const tgz = readdirSync(into).find((f) => f.startsWith('chatfold-') && f.endsWith('.tgz'))
  if (tgz === undefined) throw new Error('npm pack wrote no tarball')
  return join(into, tgz)
}

export type Manager = 'npm' | 'pnpm'

/**
 * A new ES-module project in `dir/name` with `packages` installed as a user would: `npm install`
 * or `pnpm add` (pnpm from this repository's dev dependencies), each with its own cache or store
 * kept between runs. The tarball is named by its path.
 */
export const project = async (dir: string, name: string, manager: Manager, packages: ReadonlyArray<string>): Promise<string> => {
  const cwd = join(dir, name)
  mkdirSync(cwd, { recursive: true })
  writeFileSync(join(cwd, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }, null, 2))
  if (manager === 'npm') await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packages], { cwd })
  else await run(join(BIN, 'pnpm'), ['add', '--prefer-offline', ...packages], { cwd })
  return cwd
}

export type GuideExample = { readonly name: string; readonly code: string; readonly runs: boolean }

/** The ```ts blocks of a guide (or the README): each as a module, and whether it runs (not types only, not Deno's). */
export const guideExamples = (page: string): GuideExample[] =>
  markdownExamples(page, readFileSync(join(ROOT, page), 'utf8'))
    .filter((e) => !denoOnly(e.code))
    .map((e, i) => ({ name: `${String(i).padStart(2, '0')}-${e.symbol}`, code: e.code, runs: !typeOnly(e.code) }))

/**
 * The compiler options of a strict ES-module project on Node (the types of what it installed), with
 * `skipLibCheck` as `tsc --init` writes it: the AI SDK's declarations import `json-schema`, whose
 * types it does not install. The package's own declarations are checked by the dist tests.
 */
const COMPILER_OPTIONS = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  lib: ['ES2022', 'DOM', 'DOM.Iterable'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
}

/**
 * Writes `examples` into `cwd/src/<folder>/`, type-checks them with `tsc` (this repository's
 * compiler, the project's types), then runs each runnable one with `tsx`, as a reader runs a
 * TypeScript file, one after another. (tsx, not `tsc` then `node`: Node's ES module loader refuses
 * fp-ts's `fp-ts/Either`, a folder, which some examples import.) Rejects naming the example and
 * its output.
 */
export const checkAndRun = async (cwd: string, folder: string, examples: ReadonlyArray<GuideExample>): Promise<void> => {
  mkdirSync(join(cwd, 'src', folder), { recursive: true })
  // a configuration per folder: folders of one project are checked apart, and may be at the same time
  const config = `tsconfig.${folder}.json`
  writeFileSync(join(cwd, config), JSON.stringify({ compilerOptions: COMPILER_OPTIONS, include: [`src/${folder}`] }, null, 2))
  for (const e of examples) writeFileSync(join(cwd, 'src', folder, `${e.name}.ts`), `${e.code}\nexport {}\n`)
  await run(join(BIN, 'tsc'), ['-p', config], { cwd })
  for (const e of examples) if (e.runs) await runTs(cwd, join('src', folder, `${e.name}.ts`))
}

/** Runs a TypeScript file of a project with `tsx`. */
export const runTs = (cwd: string, file: string): Promise<Ran> => run(join(BIN, 'tsx'), [file], { cwd })
