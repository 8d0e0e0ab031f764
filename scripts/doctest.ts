/**
 * `npm run test:examples`: every `@example` in the doc comments of `src/` and `workers/`, and every
 * ```ts block of the README and of the guides in `docs/guides/`, is type-checked, and every
 * self-contained one is run, so the docs cannot drift from the code.
 *
 * Each example becomes a module in `.doctest/` (imports of `chatfold`, `chatfold/node`, … map to
 * the sources through tsconfig `paths`), type-checked with the project's compiler options in one
 * `tsc` run. Examples are then imported one after another in one process, each in a fresh scratch
 * folder (examples may write files), with console output silenced and a time limit.
 * An example that uses `declare` (a value it does not build, such as `declare const history:
 * Messages`), or that is a worker script (`expose(…)`), can only be type-checked; it is counted as such. Errors name the source file and line.
 * A result an example shows (`expression // value`) is checked where the example runs: see
 * scripts/doctest-shown.ts for the convention.
 *
 * `--keep` leaves `.doctest/` in place to look at.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHECK_IMPORT, checkShown } from './doctest-shown.ts'

export type Example = {
  /** the source file, relative to the root */
  readonly file: string
  /** the 1-based line of the example's first code line in the source */
  readonly line: number
  /** the exported name the comment documents, or `module` */
  readonly symbol: string
  readonly code: string
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The `@example` blocks of one file's doc comments. */
export const examplesOf = (file: string, text: string): Example[] => {
  const lines = text.split('\n')
  const found: Example[] = []
  let i = 0
  while (i < lines.length) {
    if (!/^\s*\/\*\*/.test(lines[i] ?? '')) {
      i++
      continue
    }
    const start = i
    while (i < lines.length && !(lines[i] ?? '').includes('*/')) i++
    const end = i
    const body = lines.slice(start, end + 1).map((l) => l.replace(/^\s*\/\*\*\s?/, '').replace(/\s*\*\/\s*$/, '').replace(/^\s*\* ?/, ''))
    const next = lines.slice(end + 1, end + 4).join(' ')
    const symbol = /@module/.test(body.join('\n'))
      ? 'module'
      : (/export\s+(?:declare\s+)?(?:const|function|type|class|interface|let)\s+([A-Za-z_$][\w$]*)/.exec(next)?.[1] ?? 'anonymous')
    for (let j = 0; j < body.length; j++) {
      if (!/^@example\b/.test(body[j] ?? '')) continue
      const code: string[] = []
      const first = j + 1
      let k = first
      while (k < body.length && !/^@\w/.test(body[k] ?? '')) code.push(body[k++] ?? '')
      while (code.length > 0 && (code.at(-1) ?? '').trim() === '') code.pop()
      // a fenced example: keep what is inside the fence
      const fenced = code.findIndex((l) => /^```/.test(l.trim()))
      const lines2 = fenced >= 0 ? code.slice(fenced + 1, code.findIndex((l, n) => n > fenced && /^```/.test(l.trim()))) : code
      found.push({ file, line: start + first + 1 + (fenced >= 0 ? fenced + 1 : 0), symbol, code: lines2.join('\n') })
      j = k - 1
    }
    i = end + 1
  }
  return found
}

/**
 * The TypeScript blocks of a Markdown page (the README, a guide): each ```ts fence is an example,
 * named after the heading above it. A fence written ```ts ignore is prose, not an example.
 */
export const markdownExamples = (file: string, text: string): Example[] => {
  const lines = text.split('\n')
  const found: Example[] = []
  let heading = 'page'
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? ''
    const h = /^#+\s+(.*)$/.exec(line)
    if (h !== null) heading = (h[1] ?? '').replace(/[^\w]+/g, '_').replace(/^_|_$/g, '').slice(0, 40) || 'heading'
    if (!/^```ts\s*$/.test(line)) continue
    const start = i + 1
    let end = start
    while (end < lines.length && !/^```/.test(lines[end] ?? '')) end++
    found.push({ file, line: start + 1, symbol: heading, code: lines.slice(start, end).join('\n') })
    i = end
  }
  return found
}

/** The Markdown pages whose examples run: the README and every guide in `docs/guides/`. */
const pages = (): string[] => {
  const guides = join(root, 'docs', 'guides')
  const inGuides = statSync(guides, { throwIfNoEntry: false })?.isDirectory() === true
    ? readdirSync(guides).filter((f) => f.endsWith('.md')).map((f) => join(guides, f))
    : []
  return [join(root, 'README.md'), ...inGuides.sort()]
}

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : []
  })

/**
 * Whether an example can only be type-checked: it describes values it does not build (`declare
 * const x: T`), or it is a worker script (it calls Comlink's `expose`, which needs a worker's scope).
 */
export const typeOnly = (code: string): boolean => /^\s*declare\s/m.test(code) || /^\s*expose\(/m.test(code)

/** Whether an example is for Deno (it uses the `Deno` global): type-checked by `deno check`, not by tsc, and not run on Node. */
export const denoOnly = (code: string): boolean => /\bDeno\./.test(code)

const HEADER_LINES = 1

const main = (): void => {
  const keep = process.argv.includes('--keep')
  const examples = [
    ...['src', 'workers'].flatMap((d) => walk(join(root, d))).sort().flatMap((f) => examplesOf(relative(root, f), readFileSync(f, 'utf8'))),
    ...pages().flatMap((f) => markdownExamples(relative(root, f), readFileSync(f, 'utf8'))),
  ]
  const out = join(root, '.doctest')
  rmSync(out, { recursive: true, force: true })
  mkdirSync(out, { recursive: true })
  const names = examples.map((e, n) => `${String(n).padStart(3, '0')}-${e.file.replace(/[/.]/g, '_')}-${e.symbol}.ts`)
  // results shown as `expression // value` become checks (scripts/doctest-shown.ts)
  const shownErrors: string[] = []
  let shown = 0
  examples.forEach((e, n) => {
    // a relative import means the module beside the source file (an example of a module no entry point exports)
    const relinked = e.code.replace(
      /(from\s+|import\(\s*)(['"])(\.\.?\/[^'"]+)\2/g,
      (_, lead: string, q: string, spec: string) => `${lead}${q}../${join(dirname(e.file), spec)}${q}`,
    )
    const checked = checkShown(relinked, (line) => `${e.file}:${e.line + line}`)
    shown += checked.count
    for (const p of checked.problems) shownErrors.push(`${e.file}:${e.line + p.line}: example of ${e.symbol}: ${p.message}`)
    if (checked.count > 0 && (typeOnly(e.code) || denoOnly(e.code)))
      shownErrors.push(
        `${e.file}:${e.line}: example of ${e.symbol}: shows ${checked.count} result(s) but is only type-checked, so nothing checks them (make it run, or describe the result in prose)`,
      )
    const code = checked.count > 0 && !denoOnly(e.code) ? `${checked.code}\n${CHECK_IMPORT('../scripts/doctest-assert.ts')}` : relinked
    // `export {}` keeps each example a module of its own (top-level await, no shared names)
    writeFileSync(
      join(out, `${denoOnly(e.code) ? 'deno-' : ''}${names[n]!}`),
      `${denoOnly(e.code) ? '/// <reference lib="deno.unstable" />\n' : ''}// ${e.file}:${e.line} (${e.symbol})\n${code}\nexport {}\n`,
    )
  })
  // package.json lists every entry point (deno.json leaves out the npm-only ones); each maps to its source
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { readonly types: string }> }
  const source = (types: string): string => types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')
  const paths = Object.fromEntries(
    Object.entries(manifest.exports).map(([k, v]) => [k === '.' ? 'chatfold' : `chatfold/${k.slice(2)}`, [join('..', source(v.types))]]),
  )
  writeFileSync(
    join(out, 'tsconfig.json'),
    JSON.stringify(
      {
        extends: '../tsconfig.json',
        compilerOptions: { noEmit: true, rootDir: '..', paths, noUnusedLocals: false, noUnusedParameters: false },
        include: ['*.ts', '../src/**/*.d.ts'],
        exclude: ['deno-*.ts'],
      },
      null,
      2,
    ),
  )

  // 1. types: one tsc run over every example (Deno's with deno check), errors mapped back to the source line
  const tsc = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', join(out, 'tsconfig.json')], { cwd: root, encoding: 'utf8' })
  const typeErrors: string[] = []
  for (const m of `${tsc.stdout}${tsc.stderr}`.matchAll(/^\.doctest\/(\d{3})-[^(]+\((\d+),(\d+)\): (error TS\d+: .*)$/gm)) {
    const e = examples[Number(m[1])]!
    typeErrors.push(`${e.file}:${e.line + Number(m[2]) - 1 - HEADER_LINES}: example of ${e.symbol}: ${m[4]}`)
  }
  if (tsc.status !== 0 && typeErrors.length === 0) typeErrors.push(`tsc failed: ${tsc.stdout}${tsc.stderr}`)
  const forDeno = examples.flatMap((e, n) => (denoOnly(e.code) ? [join(out, `deno-${names[n]!}`)] : []))
  if (forDeno.length > 0) {
    const deno = spawnSync(join(root, 'node_modules', '.bin', 'deno'), ['check', '--unstable-kv', ...forDeno], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    })
    if (deno.status !== 0) typeErrors.push(`deno check of the Deno examples failed:\n${deno.stdout}${deno.stderr}`)
  }

  // 2. run: the self-contained examples, in one child process (tsx resolves the same paths)
  const runnable = examples.flatMap((
    e,
    n,
  ) => (typeOnly(e.code) || denoOnly(e.code) ? [] : [{ n, file: join(out, names[n]!), at: `${e.file}:${e.line} (${e.symbol})` }]))
  writeFileSync(join(out, 'run.json'), JSON.stringify(runnable))
  const scratch = mkdtempSync(join(tmpdir(), 'chatfold-examples-'))
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'doctest-run.ts'), join(out, 'run.json'), scratch], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, TSX_TSCONFIG_PATH: join(out, 'tsconfig.json') },
    timeout: 300_000,
  })
  rmSync(scratch, { recursive: true, force: true })
  const runErrors = run.status === 0 ? [] : [`${run.stdout}${run.stderr}`.trim() || `the example runner ended with ${run.status ?? run.signal}`]
  if (!keep) rmSync(out, { recursive: true, force: true })

  for (const e of [...shownErrors, ...typeErrors, ...runErrors]) console.error(e)
  const summary = `examples: ${examples.length} type-checked, ${runnable.length} run, ${
    examples.length - runnable.length
  } type-checked only (they declare values they do not build, are worker scripts, or are for Deno: ${forDeno.length} checked by deno check); ${shown} shown results checked`
  if (shownErrors.length + typeErrors.length + runErrors.length > 0) {
    console.error(
      `${summary}; ${shownErrors.length} result(s) that cannot be checked, ${typeErrors.length} type error(s), ${
        runErrors.length === 0 ? 'all ran' : 'some failed to run'
      }`,
    )
    process.exit(1)
  }
  console.log(`${summary}; all pass`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
