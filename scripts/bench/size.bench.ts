/**
 * Bundle sizes (esbuild, minified, for the browser; gzip level 6): what each entry loads up front,
 * with code splitting and without, and what each encoding adds on first use. Sizes, not times:
 * the same on every run.
 */
import { type Bundle, bundle, firstUse, sizeOf, staticClosure, tablesIn } from '../size.ts'
import { table } from './lib.ts'

const kb = (bytes: number): string => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(1)} kB`)

/** The chunks loading an encoding adds to what is loaded up front (its ranks and split patterns). */
const added = (b: Bundle, name: 'o200k_base' | 'cl100k_base'): Set<string> => {
  const upFront = staticClosure(b, b.main)
  return new Set([...firstUse(b, name).chunks].filter((c) => !upFront.has(c)))
}

const ENGINE_APP = `import { createEngine, textMessage } from './src/mod.ts'
const engine = createEngine({ mode: 'auto', encoding: 'o200k_base' })
export const opened = engine.open('s', [textMessage('user', 'Hello')])
`

export default async function sizeBench(): Promise<void> {
  const rows: string[][] = []
  const row = (what: string, b: Bundle, chunks: Iterable<string>, note: string): void => {
    const list = [...chunks]
    const s = sizeOf(b, list)
    const tables = [...tablesIn(b, list)].join(', ')
    rows.push([what, kb(s.bytes), kb(s.gzip), tables === '' ? 'none' : tables, note])
  }
  const all = (b: Bundle) => b.chunks.keys()

  for (const entry of ['message', 'history', 'tokens', 'store', 'adapters']) {
    const b = await bundle({ entry: `src/${entry}/mod.ts`, splitting: false })
    row(`chatfold/${entry}, everything`, b, all(b), 'no rank table, with or without splitting')
  }
  const core = await bundle({ entry: 'src/mod.ts', splitting: true })
  row('chatfold (the core), up front, splitting', core, staticClosure(core, core.main), 'every export')
  const coreWhole = await bundle({ entry: 'src/mod.ts', splitting: false })
  row('chatfold (the core), no splitting', coreWhole, all(coreWhole), 'both tables inlined')
  const engine = await bundle({ code: ENGINE_APP, splitting: true })
  row('core with the engine (createEngine app), up front, splitting', engine, staticClosure(engine, engine.main), 'the worker is a file of its own')
  const worker = await bundle({ entry: 'workers/engine.worker.ts', splitting: true })
  row('engine worker, up front, splitting', worker, staticClosure(worker, worker.main), '')
  const workerWhole = await bundle({ entry: 'workers/engine.worker.ts', splitting: false })
  row('engine worker, no splitting', workerWhole, all(workerWhole), 'both tables inlined')
  row('o200k_base on first use (chunks loadEstimator imports)', core, added(core, 'o200k_base'), 'ranks, split patterns')
  row('cl100k_base on first use', core, added(core, 'cl100k_base'), '')
  table('Bundle sizes (esbuild --minify, browser; gzip level 6)', ['bundle', 'minified', 'gzipped', 'rank tables', 'note'], rows)
}
