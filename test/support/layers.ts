/**
 * The layer map of DESIGN.md and the rules on `src/`, shared by `scripts/check-core.ts` and
 * `test/layers.test.ts`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Layer of each module, lowest first. A module may import a lower layer, or a module of its own
 * layer in the same folder or its subfolders (as long as there is no cycle). Prefixes are matched longest first.
 */
export const LAYERS: ReadonlyArray<readonly [string, number]> = [
  ['src/internal/', 0], // private helpers: no entry re-exports them
  ['src/message/', 1], // chatfold/message: roles, parts, one message, decoding failures
  ['src/tokens/', 2], // chatfold/tokens: the token definition, estimators without tables, usage
  ['src/tokenizer/', 3], // chatfold/tokenizer: gpt-tokenizer's encodings, loaded on first use
  ['src/cost/', 3], // chatfold/cost: a dated price table and the cost of the usage a history records
  ['src/history/', 4], // chatfold/history: a history's views, edits, tool pairs, pruning, renders, JSON
  ['src/compaction/', 5], // chatfold/compaction: when and how to compact
  ['src/builder/', 6], // chatfold/builder: a conversation built from stream events, the Chat container
  ['src/store/', 7], // chatfold/store: the chat store, its durable log and its HTTP handler
  ['src/streams/', 7.5], // chatfold/streams: Durable Streams over a durable log, and a chat store's conversations as streams
  ['src/readback/', 7.6], // chatfold/readback: pruned and cleared tool outputs read back through their pointers, and a history searched
  ['src/adapters/', 8], // chatfold/adapters: provider wire formats, whole requests, counting a request
  ['src/engine/', 8], // chatfold/engine: the compaction engine, in a worker or inline
  ['src/counting/', 9], // chatfold/counting: a whole request counted as its provider counts it
  ['src/sessions/', 9], // chatfold/sessions: session files of coding agents, read with the adapters
  ['src/mod.ts', 10], // chatfold: the common jobs
  ['src/node/', 11],
  ['src/cloudflare/', 11],
  ['src/deno/', 11],
  ['workers/', 11],
  ['src/summarize/', 11], // the model summarisers' entry points (chatfold/summarize/…)
  ['src/claude-agent-sdk/', 11], // chatfold/claude-agent-sdk: a session store of the Claude Agent SDK in the store
  ['src/ai-sdk/', 11], // chatfold/ai-sdk: the AI SDK's middleware and prepareStep over the adapters and compaction
  ['src/openai-agents/', 11.5], // chatfold/openai-agents: a session of the OpenAI Agents SDK in the store
  ['src/postgres/', 11.5], // chatfold/postgres: the store in PostgreSQL, served on Node (over chatfold/node's server)
  ['src/cli/', 12], // the chatfold command: may use every entry point, src/node/ among them
]

/**
 * The tiers `src/README.md` lists the folders by: the concepts (one entry each), the runtimes (a
 * backend or a thread on one runtime), the frameworks (drop-ins for another library's extension
 * points), the command, the private helpers, and the root entry.
 */
export type Tier = 'concept' | 'runtime' | 'framework' | 'command' | 'internal' | 'root'

/**
 * The tier of each top folder of `LAYERS` (a deeper prefix takes its top folder's tier). Every
 * folder here is listed under its tier in `src/README.md`, with the subpaths it serves
 * (`test/layers.test.ts` holds the two together).
 */
export const TIERS: Readonly<Record<string, Tier>> = {
  'src/internal/': 'internal',
  'src/message/': 'concept',
  'src/tokens/': 'concept',
  'src/tokenizer/': 'concept',
  'src/cost/': 'concept',
  'src/history/': 'concept',
  'src/compaction/': 'concept',
  'src/builder/': 'concept',
  'src/store/': 'concept',
  'src/streams/': 'concept',
  'src/readback/': 'concept',
  'src/adapters/': 'concept',
  'src/engine/': 'concept',
  'src/counting/': 'concept',
  'src/sessions/': 'concept',
  'src/mod.ts': 'root',
  'src/node/': 'runtime',
  'src/deno/': 'runtime',
  'src/cloudflare/': 'runtime',
  'src/postgres/': 'runtime',
  'workers/': 'runtime',
  'src/ai-sdk/': 'framework',
  'src/openai-agents/': 'framework',
  'src/claude-agent-sdk/': 'framework',
  'src/summarize/': 'framework',
  'src/cli/': 'command',
}

/** The top folder of a path in `LAYERS` (`src/adapters/openai/x.ts` → `src/adapters/`), or the file at the root of `src/`. */
export const topFolder = (path: string): string => {
  const parts = path.split('/')
  return parts[0] === 'src' ? (parts.length > 2 ? `src/${parts[1]}/` : path) : `${parts[0]}/`
}

/** The tier of a file or a prefix of `LAYERS`. */
export const tierOf = (path: string): Tier | undefined => TIERS[topFolder(path)]

/** Runtime entry points: the only places where `node:`, `Deno.`, `Buffer` and `process` may appear. */
export const RUNTIME_ENTRIES = ['src/node/', 'src/cli/', 'src/deno/', 'src/postgres/']

const entryOf = (file: string): readonly [string, number] | undefined => {
  let best: readonly [string, number] | undefined
  for (const entry of LAYERS) if (file.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry
  return best
}

export const layerOf = (file: string): number | undefined => entryOf(file)?.[1]

/** Whether two modules share a folder: the same directory, or the same layer folder and its subfolders (`src/adapters/openai/` is in `src/adapters/`). */
const sameFolderOf = (a: string, b: string): boolean => {
  if (dirname(a) === dirname(b)) return true
  const entry = entryOf(a)?.[0]
  return entry !== undefined && entry.endsWith('/') && entry === entryOf(b)?.[0]
}

export type Violation = { readonly file: string; readonly line: number; readonly message: string }

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : []
  })

/** The TypeScript files of `src/` and `workers/` under `root` (the repository by default), as paths from it. */
export const sourceFiles = (root: string = ROOT): string[] =>
  [...walk(join(root, 'src')), ...(existsSync(join(root, 'workers')) ? walk(join(root, 'workers')) : [])].map((p) => relative(root, p).split('\\').join('/'))

const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g
const RUNTIME_SPECIFIC: ReadonlyArray<readonly [RegExp, string]> = [
  [/from\s+['"]node:|import\(\s*['"]node:/, 'a node: import'],
  [/\bDeno\./, 'the Deno global'],
  [/\bBuffer\b/, 'Buffer'],
  [/\bprocess\./, 'process'],
  [/\brequire\(/, 'require()'],
]

/** Strips comments, so that docs may mention what code may not use. */
const stripComments = (src: string): string => src.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"])\/\/.*$/gm, '$1')

export const importsOf = (file: string, root: string = ROOT): Array<{ readonly target: string; readonly line: number }> =>
  importsIn(file, readFileSync(join(root, file), 'utf8'))

/** The relative imports of `file`, whose text is `text`, each resolved to a path from the root. */
export const importsIn = (file: string, text: string): Array<{ readonly target: string; readonly line: number }> => {
  const src = stripComments(text)
  const out: Array<{ target: string; line: number }> = []
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]
    if (spec === undefined || !spec.startsWith('.')) continue
    const line = src.slice(0, m.index + m[0].length - m[0].trimStart().length).split('\n').length
    out.push({ target: relative(ROOT, resolve(ROOT, dirname(file), spec)).split('\\').join('/'), line })
  }
  return out
}

/** A private file: its name starts with `_` (as in denoland/std), so only its own folder may import it. */
export const isPrivate = (file: string): boolean => basename(file).startsWith('_')

/**
 * Imports into another folder's private file, over any tree given as file → text (so a test can
 * check the rule on a tree of its own). Only files of the private file's own folder may import it;
 * the tests of that folder are not in `src/`, so they are not checked here.
 */
export const privateViolations = (tree: ReadonlyMap<string, string>): Violation[] => {
  const out: Violation[] = []
  for (const [file, text] of tree)
    for (const { target, line } of importsIn(file, text))
      if (isPrivate(target) && dirname(target) !== dirname(file))
        out.push({ file, line, message: `imports ${target}, a private file of another folder; import its folder's public files` })
  return out
}

/** Every violation of the rules in the tree under `root` (the repository by default). */
export const violations = (root: string = ROOT): Violation[] => {
  const files = sourceFiles(root)
  const out: Violation[] = []
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const src = stripComments(readFileSync(join(root, file), 'utf8'))
    if (!RUNTIME_ENTRIES.some((e) => file.startsWith(e)) && !file.startsWith('workers/')) {
      src.split('\n').forEach((text, i) => {
        for (const [re, what] of RUNTIME_SPECIFIC) if (re.test(text)) out.push({ file, line: i + 1, message: `${what} in the core` })
      })
    }
    const from = layerOf(file)
    if (from === undefined) {
      out.push({ file, line: 1, message: 'module has no layer: add it to LAYERS in test/support/layers.ts' })
      continue
    }
    const edges: string[] = []
    for (const { target, line } of importsOf(file, root)) {
      if (file.startsWith('src/') && target.endsWith('/mod.ts') && file !== 'src/mod.ts')
        out.push({ file, line, message: 'imports mod.ts; import the module itself' })
      if (!target.endsWith('.ts')) out.push({ file, line, message: `import of ${target} without its .ts extension` })
      const to = layerOf(target)
      if (to === undefined) continue
      const sameFolder = sameFolderOf(target, file)
      if (to > from || (to === from && !sameFolder)) out.push({ file, line, message: `imports ${target}, which is not in a lower layer` })
      edges.push(target)
    }
    graph.set(file, edges)
  }
  // cycles within a layer's folder
  const state = new Map<string, 'open' | 'done'>()
  const visit = (f: string, path: string[]): void => {
    if (state.get(f) === 'done') return
    if (state.get(f) === 'open') {
      out.push({ file: f, line: 1, message: `import cycle: ${[...path.slice(path.indexOf(f)), f].join(' -> ')}` })
      return
    }
    state.set(f, 'open')
    for (const g of graph.get(f) ?? []) visit(g, [...path, f])
    state.set(f, 'done')
  }
  for (const f of graph.keys()) visit(f, [])
  out.push(...liteViolations(graph, root))
  out.push(...privateViolations(new Map(files.map((f) => [f, readFileSync(join(root, f), 'utf8')]))))
  return out
}

/**
 * The entries that must not reach gpt-tokenizer (its rank tables), however they are bundled: every
 * concept entry but the tokenizer itself and those that load an encoding by name (`chatfold`,
 * `chatfold/compaction`'s `compact`, `chatfold/engine`). An app with a tight size limit builds on these.
 */
export const TABLE_FREE_ENTRIES = [
  'src/message/mod.ts',
  'src/tokens/mod.ts',
  'src/history/mod.ts',
  'src/builder/mod.ts',
  'src/store/mod.ts',
  'src/adapters/mod.ts',
  'src/counting/mod.ts',
  'src/sessions/mod.ts',
]
const TOKENIZER_IMPORT = /(?:from\s+|import\(\s*)['"]gpt-tokenizer[/'"]/

/**
 * Modules that a table-free entry reaches through its relative imports and that import
 * gpt-tokenizer: a bundler emits every module a dynamic `import()` names, called or not, so an entry
 * holds no rank table only when nothing it reaches names one.
 */
const liteViolations = (graph: ReadonlyMap<string, ReadonlyArray<string>>, root: string): Violation[] =>
  TABLE_FREE_ENTRIES.flatMap((entry) => tableViolations(graph, entry, root))

const tableViolations = (graph: ReadonlyMap<string, ReadonlyArray<string>>, entry: string, root: string): Violation[] => {
  if (!graph.has(entry)) return [{ file: entry, line: 1, message: 'a table-free entry that does not exist' }]
  const via = new Map<string, string>([[entry, entry]])
  const queue = [entry]
  const out: Violation[] = []
  for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
    const src = stripComments(readFileSync(join(root, f), 'utf8'))
    const line = src.split('\n').findIndex((l) => TOKENIZER_IMPORT.test(l))
    if (line >= 0)
      out.push({
        file: f,
        line: line + 1,
        message: `imports gpt-tokenizer and is reached from ${entry} (via ${via.get(f) ?? '?'}); import the token modules without the loader`,
      })
    for (const g of graph.get(f) ?? [])
      if (!via.has(g)) {
        via.set(g, f)
        queue.push(g)
      }
  }
  return out
}
