/**
 * Bundle sizes, measured with esbuild as an application would bundle chatfold for the browser or
 * the edge: what loads up front (the entry chunk and what it imports), and what a dynamic import
 * adds on first use (an encoding's rank table). Shared by the size suite of `npm run bench` and
 * by test/scripts/size.test.ts.
 */
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import { build, type Metafile } from 'esbuild'

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** A source file that is one of gpt-tokenizer's rank tables, and which. */
export const tableOf = (input: string): 'o200k_base' | 'cl100k_base' | 'other' | undefined => {
  const m = /gpt-tokenizer\/esm\/bpeRanks\/(\w+)\.js$/.exec(input)
  return m === null ? undefined : m[1] === 'o200k_base' || m[1] === 'cl100k_base' ? m[1] : 'other'
}

export type Chunk = { readonly path: string; readonly bytes: number; readonly gzip: number; readonly inputs: ReadonlyArray<string> }

export type Bundle = {
  readonly chunks: ReadonlyMap<string, Chunk>
  /** The entry's own chunk. */
  readonly main: string
  readonly metafile: Metafile
}

/**
 * Bundles `code` (an ES module importing from the sources, resolved from the project root) or the
 * file `entry`, minified, for the browser, with or without code splitting, in memory.
 */
export const bundle = async (
  opts: { readonly code?: string; readonly entry?: string; readonly splitting: boolean; readonly platform?: 'browser' | 'neutral' },
): Promise<Bundle> => {
  const result = await build({
    ...(opts.code !== undefined
      ? { stdin: { contents: opts.code, resolveDir: ROOT, sourcefile: 'app.ts', loader: 'ts' as const } }
      : { entryPoints: [join(ROOT, opts.entry ?? 'src/mod.ts')] }),
    absWorkingDir: ROOT,
    bundle: true,
    minify: true,
    splitting: opts.splitting,
    format: 'esm',
    platform: opts.platform ?? 'browser',
    mainFields: ['module', 'main'],
    outdir: join(ROOT, 'size-out'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  })
  const chunks = new Map<string, Chunk>()
  let main = ''
  for (const f of result.outputFiles) {
    const path = relative(ROOT, f.path)
    const meta = result.metafile.outputs[path]
    chunks.set(path, { path, bytes: f.contents.byteLength, gzip: gzipSync(f.contents).byteLength, inputs: Object.keys(meta?.inputs ?? {}) })
    if (
      meta?.entryPoint !== undefined &&
      (opts.code !== undefined ? meta.entryPoint.endsWith('app.ts') : meta.entryPoint === relative(ROOT, join(ROOT, opts.entry ?? 'src/mod.ts')))
    ) main = path
  }
  if (main === '') throw new Error('Cannot measure the bundle: no chunk for its entry point')
  return { chunks, main, metafile: result.metafile }
}

/** The chunks a chunk loads with it: itself and its static imports, transitively. */
export const staticClosure = (b: Bundle, from: string): Set<string> => {
  const seen = new Set<string>([from])
  const queue = [from]
  for (let c = queue.shift(); c !== undefined; c = queue.shift())
    for (const i of b.metafile.outputs[c]?.imports ?? [])
      if (i.kind === 'import-statement' && !i.external && !seen.has(i.path)) {
        seen.add(i.path)
        queue.push(i.path)
      }
  return seen
}

/** The chunk of a module a dynamic import names (its entry in the bundle), e.g. `gpt-tokenizer/esm/bpeRanks/o200k_base.js`. */
export const dynamicEntry = (b: Bundle, inputSuffix: string): string | undefined =>
  Object.entries(b.metafile.outputs).find(([, o]) => o.entryPoint?.endsWith(inputSuffix) === true)?.[0]

/**
 * The chunks loading an encoding brings, as `loadEstimator` imports it (its ranks and the split
 * patterns): each import's chunk and that chunk's static imports. `missing` names an import the
 * bundle has no chunk for.
 */
export const firstUse = (b: Bundle, name: 'o200k_base' | 'cl100k_base'): { readonly chunks: Set<string>; readonly missing: ReadonlyArray<string> } => {
  const chunks = new Set<string>()
  const missing: string[] = []
  for (const e of [`bpeRanks/${name}.js`, 'encodingParams/constants.js']) {
    const chunk = dynamicEntry(b, e)
    if (chunk === undefined) missing.push(e)
    else for (const c of staticClosure(b, chunk)) chunks.add(c)
  }
  return { chunks, missing }
}

/** The total of some chunks: minified bytes and gzipped bytes. */
export const sizeOf = (b: Bundle, chunks: Iterable<string>): { readonly bytes: number; readonly gzip: number } => {
  let bytes = 0
  let gzip = 0
  for (const c of chunks) {
    const k = b.chunks.get(c)
    bytes += k?.bytes ?? 0
    gzip += k?.gzip ?? 0
  }
  return { bytes, gzip }
}

/** The rank tables a set of chunks holds. */
export const tablesIn = (b: Bundle, chunks: Iterable<string>): Set<string> => {
  const out = new Set<string>()
  for (const c of chunks)
    for (const i of b.chunks.get(c)?.inputs ?? []) {
      const t = tableOf(i)
      if (t !== undefined) out.add(t)
    }
  return out
}
