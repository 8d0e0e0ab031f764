/**
 * The layer map of DESIGN.md and the rules on `src/`, shared by `scripts/check-core.ts` and
 * `test/layers.test.ts`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Layer of each module, lowest first. A module may import a lower layer, or a module of its own
 * layer in the same folder (as long as there is no cycle). Prefixes are matched longest first.
 */
export const LAYERS: ReadonlyArray<readonly [string, number]> = [
  ['src/internal/', 0],
  ['src/failure.ts', 1],
  ['src/role.ts', 1],
  ['src/part.ts', 2], // re-exports the three part modules below
  ['src/part-model.ts', 2],
  ['src/part-registry.ts', 2],
  ['src/part-make.ts', 2],
  ['src/message.ts', 3],
  ['src/message-edit.ts', 3.2],
  ['src/content.ts', 3],
  ['src/messages/', 4],
  ['src/tokens/', 4.5], // the token modules, under the src/tokens.ts entry point
  ['src/tokens.ts', 5],
  ['src/compaction/', 5.5], // compaction's parts, under the src/compaction.ts entry point
  ['src/compaction.ts', 6],
  ['src/conversation/', 6.5], // the builder's parts, under the src/conversation.ts entry point
  ['src/conversation.ts', 7],
  ['src/chat.ts', 7],
  ['src/store/', 7],
  ['src/adapters/', 8],
  ['src/engine/', 8],
  ['src/sessions/', 8.5], // session files of coding tools: read with the adapters' helpers
  ['src/http-body.ts', 8.5], // the handler's bodies and responses
  ['src/http-guard.ts', 8.5], // the handler's Host, Origin and token checks
  ['src/http.ts', 9],
  ['src/http-durable.ts', 9.5], // a durable store served, opened again after a failure
  ['src/chat-log.ts', 9.6], // records per conversation in a store, in process or over HTTP: what the integrations keep
  ['src/mod.ts', 10],
  ['src/lite.ts', 10], // chatfold/lite: the main entry without the encoding loader
  ['src/node/', 11],
  ['src/fs/', 11],
  ['src/cloudflare/', 11],
  ['src/deno/', 11],
  ['src/cli/', 12],
  ['workers/', 11],
  ['src/summarize/', 11], // the model summarisers' entry points (chatfold/summarize/…)
  ['src/openai-agents/', 11.5], // chatfold/openai-agents: a session of the OpenAI Agents SDK in the store
  ['src/claude-agent-sdk/', 11], // chatfold/claude-agent-sdk: a session store of the Claude Agent SDK in the store
  ['src/ai-sdk/', 11], // chatfold/ai-sdk: the AI SDK's middleware and prepareStep over the adapters and compaction
  ['src/cli/', 12], // the chatfold command: may use every entry point, src/node/ among them
]

/** Runtime entry points: the only places where `node:`, `Deno.`, `Buffer` and `process` may appear. */
export const RUNTIME_ENTRIES = ['src/node/', 'src/fs/', 'src/cli/', 'src/deno/']

export const layerOf = (file: string): number | undefined => {
  let best: readonly [string, number] | undefined
  for (const entry of LAYERS) if (file.startsWith(entry[0]) && (best === undefined || entry[0].length > best[0].length)) best = entry
  return best?.[1]
}

export type Violation = { readonly file: string; readonly line: number; readonly message: string }

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : []
  })

export const sourceFiles = (): string[] => [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'workers'))].map((p) => relative(ROOT, p).split('\\').join('/'))

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

export const importsOf = (file: string): Array<{ readonly target: string; readonly line: number }> => {
  const src = stripComments(readFileSync(join(ROOT, file), 'utf8'))
  const out: Array<{ target: string; line: number }> = []
  for (const m of src.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]
    if (spec === undefined || !spec.startsWith('.')) continue
    const line = src.slice(0, m.index).split('\n').length
    out.push({ target: relative(ROOT, resolve(ROOT, dirname(file), spec)).split('\\').join('/'), line })
  }
  return out
}

export const violations = (): Violation[] => {
  const files = sourceFiles()
  const out: Violation[] = []
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const src = stripComments(readFileSync(join(ROOT, file), 'utf8'))
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
    for (const { target, line } of importsOf(file)) {
      if (file.startsWith('src/') && target.endsWith('/mod.ts') && file !== 'src/mod.ts') out.push({ file, line, message: 'imports mod.ts; import the module itself' })
      if (!target.endsWith('.ts')) out.push({ file, line, message: `import of ${target} without its .ts extension` })
      const to = layerOf(target)
      if (to === undefined) continue
      const sameFolder = dirname(target) === dirname(file)
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
  out.push(...liteViolations(graph))
  return out
}

/** The entry that must not reach gpt-tokenizer (its rank tables), however it is bundled. */
export const LITE_ENTRY = 'src/lite.ts'
const TOKENIZER_IMPORT = /(?:from\s+|import\(\s*)['"]gpt-tokenizer[/'"]/

/**
 * Modules that `chatfold/lite` reaches through its relative imports and that import gpt-tokenizer:
 * a bundler emits every module a dynamic `import()` names, called or not, so the lite entry holds
 * no rank table only when nothing it reaches names one.
 */
const liteViolations = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Violation[] => {
  if (!graph.has(LITE_ENTRY)) return []
  const via = new Map<string, string>([[LITE_ENTRY, LITE_ENTRY]])
  const queue = [LITE_ENTRY]
  const out: Violation[] = []
  for (let f = queue.shift(); f !== undefined; f = queue.shift()) {
    const src = stripComments(readFileSync(join(ROOT, f), 'utf8'))
    const line = src.split('\n').findIndex((l) => TOKENIZER_IMPORT.test(l))
    if (line >= 0) out.push({ file: f, line: line + 1, message: `imports gpt-tokenizer and is reached from ${LITE_ENTRY} (via ${via.get(f) ?? '?'}); import the token modules without the loader` })
    for (const g of graph.get(f) ?? [])
      if (!via.has(g)) {
        via.set(g, f)
        queue.push(g)
      }
  }
  return out
}
