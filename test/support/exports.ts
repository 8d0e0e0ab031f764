/**
 * What each entry point of the package exports, read from the sources the way JSR documents them
 * (`deno doc --json`), with the declaration each name stands for. Shared by `test/exports.test.ts`
 * and `npm run docs`.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ROOT } from './layers.ts'

/** One exported name: its kind (value or type), and the module and name it was declared with. */
export type Exported = {
  readonly name: string
  readonly type: boolean
  readonly file: string
  readonly declared: string
  /** whether its doc comment has an example (`undefined` for a re-export of another entry's name, documented there) */
  readonly example: boolean | undefined
}

/** package.json's entry points (subpath → source file), the built paths mapped back to sources. */
export const entryPoints = (): ReadonlyMap<string, string> => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { default: string }> }
  return new Map(Object.entries(pkg.exports).map(([k, v]) => [k, v.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')]))
}

type DocNode = {
  readonly name: string
  readonly declarations: ReadonlyArray<{
    readonly kind: string
    readonly location: { readonly filename: string; readonly line: number }
    readonly jsDoc?: { readonly tags?: ReadonlyArray<{ readonly kind: string }> }
  }>
}

/** The names each source file exports, with what they stand for. */
export const exportsOf = (files: ReadonlyArray<string>): ReadonlyMap<string, ReadonlyArray<Exported>> => {
  const deno = join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'deno.cmd' : 'deno')
  const run = spawnSync(deno, ['doc', '--json', ...files], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1' },
  })
  if (run.status !== 0) throw new Error(`deno doc failed: ${run.stderr}`)
  const doc = JSON.parse(run.stdout) as { nodes: Record<string, { symbols: ReadonlyArray<DocNode> }> }
  const out = new Map<string, Exported[]>()
  for (const [url, node] of Object.entries(doc.nodes)) {
    const file = relative(ROOT, fileURLToPath(url)).split('\\').join('/')
    out.set(
      file,
      node.symbols.map((s) => {
        const origin = originOf(file, s.name)
        const reference = s.declarations.every((x) => x.kind === 'reference')
        return {
          name: s.name,
          type: s.declarations.every((x) => x.kind === 'typeAlias' || x.kind === 'interface'),
          file: origin.file,
          declared: origin.name,
          example: reference ? undefined : s.declarations.some((x) => (x.jsDoc?.tags ?? []).some((t) => t.kind === 'example')),
        }
      }),
    )
  }
  return out
}

const DECLARATION = (name: string): RegExp =>
  new RegExp(`^export\\s+(?:declare\\s+)?(?:const|let|var|function\\*?|async\\s+function|class|abstract\\s+class|type|interface|enum)\\s+${name}\\b`, 'm')
const RE_EXPORT = /^export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'([^']+)'/gm
const STAR = /^export\s+\*\s+from\s*'([^']+)'/gm

/**
 * The module and name an export of `file` was declared with, following `export { … } from` and
 * `export * from` through the sources (relative specifiers only).
 */
export const originOf = (file: string, name: string, seen: ReadonlySet<string> = new Set()): { readonly file: string; readonly name: string } => {
  if (seen.has(`${file}#${name}`)) return { file, name }
  const src = readFileSync(join(ROOT, file), 'utf8')
  if (DECLARATION(name).test(src)) return { file, name }
  const next = new Set([...seen, `${file}#${name}`])
  const target = (spec: string) => relative(ROOT, join(ROOT, dirname(file), spec)).split('\\').join('/')
  for (const m of src.matchAll(RE_EXPORT)) {
    const spec = m[2] ?? ''
    if (!spec.startsWith('.')) continue
    for (const item of (m[1] ?? '').split(',')) {
      const [orig, alias] = item.replace(/^\s*type\s+/, '').trim().split(/\s+as\s+/)
      if ((alias ?? orig) === name && orig !== undefined) return originOf(target(spec), orig, next)
    }
  }
  for (const m of src.matchAll(STAR)) {
    const spec = m[1] ?? ''
    if (!spec.startsWith('.')) continue
    const found = originOf(target(spec), name, next)
    if (found.file !== target(spec) || DECLARATION(name).test(readFileSync(join(ROOT, found.file), 'utf8'))) return found
  }
  return { file, name }
}
