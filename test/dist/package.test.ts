/**
 * The built package as npm users get it (run after `npm run build`): `npm pack`, unpacked into a
 * scratch project's node_modules (its dependencies linked, nothing else), then used from plain
 * Node with no loader: the entry points resolve through package.json `exports`, the engine runs
 * in a worker_threads worker started from the built `.js` worker, the declarations type-check a
 * consumer under `nodenext`, and a browser bundle keeps the tokenizer out of its main chunk.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TABLE_FREE_ENTRIES } from '../support/layers.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string
  version: string
  exports: Record<string, { types: string; default: string }>
  dependencies: Record<string, string>
}

let scratch = ''
let installed = ''
let packed: string[] = []

const node = (code: string, timeout = 60_000) => spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: scratch, encoding: 'utf8', timeout })

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'src', 'mod.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  scratch = mkdtempSync(join(tmpdir(), 'chatfold-dist-'))
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
  const [info] = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>
  if (info === undefined) throw new Error('npm pack gave no tarball')
  packed = info.files.map((f) => f.path)
  installed = join(scratch, 'node_modules', pkg.name)
  mkdirSync(installed, { recursive: true })
  execFileSync('tar', ['-xzf', join(scratch, info.filename), '-C', installed, '--strip-components=1'])
  // the optional peers the entries below are run with, and what they need (the AI SDK's packages)
  const aiSdk = ['ai', '@ai-sdk', '@opentelemetry', '@vercel', '@standard-schema', 'eventsource-parser', 'undici', 'zod', 'json-schema']
  for (const dep of [...Object.keys(pkg.dependencies), 'openai', ...aiSdk, '@types/node', 'undici-types']) {
    const target = join(root, 'node_modules', dep)
    if (!existsSync(target)) continue
    const link = join(scratch, 'node_modules', dep)
    mkdirSync(dirname(link), { recursive: true })
    symlinkSync(target, link, 'dir')
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }))
})

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true })
})

describe('the packed package', () => {
  it('ships the built files and nothing of the sources, tests or scripts', () => {
    expect(packed).toContain('package.json')
    expect(packed).toContain('dist/src/mod.js')
    expect(packed).toContain('dist/src/mod.d.ts')
    expect(packed).toContain('dist/workers/engine.worker.js')
    expect(packed).toContain('dist/src/node/engine.worker.js')
    expect(packed.filter((p) => /^(src|test|scripts)\//.test(p) || p.endsWith('.ts') && !p.endsWith('.d.ts'))).toEqual([])
  })

  it('runs the chatfold bin from the built files, with no loader', () => {
    expect(packed).toContain('bin/chatfold.mjs')
    const bin = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as { bin: Record<string, string> }
    const fixture = join(root, 'test', 'fixtures', 'claude-code', 'session.jsonl')
    const r = spawnSync(process.execPath, [join(installed, bin.bin['chatfold'] as string), 'stats', fixture, '--json', '--encoding', 'heuristic'], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.status, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'claude-code', messages: 9 })
    const bad = spawnSync(process.execPath, [join(installed, bin.bin['chatfold'] as string), 'render', join(scratch, 'missing.jsonl')], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(bad.status).toBe(3)
  })

  it('runs a model summariser from its own entry point with its SDK installed beside it', () => {
    const r = node(`
      import OpenAI from 'openai'
      import { openAISummarizer } from 'chatfold/summarize/openai'
      const summary = '## Goal\\n- a\\n## Constraints\\n- b\\n## Progress\\n- c\\n## Decisions\\n- d\\n## Next steps\\n- e\\n## Files\\n- f'
      const fetch = async () => new Response(JSON.stringify({ id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: summary, refusal: null } }] }), { headers: { 'content-type': 'application/json' } })
      const out = await openAISummarizer({ client: new OpenAI({ apiKey: 'k', fetch, maxRetries: 0 }), model: 'm' })('[User]: hi', { prompt: 'p' })
      console.log(out === summary ? 'ok' : 'got ' + out)
    `)
    expect(r.stderr).toBe('')
    expect(r.stdout.trim()).toBe('ok')
  })

  it('runs the framework integrations from their own entry points, which need their SDKs for types only', () => {
    const r = node(`
      import { createChatStore } from 'chatfold/store'
      import { chatStoreSession, storeChatLog } from 'chatfold/openai-agents'
      import { chatStoreSessionStore } from 'chatfold/claude-agent-sdk'
      const store = createChatStore({ maxHistorySize: Infinity })
      const session = chatStoreSession({ log: storeChatLog(store), sessionId: 's' })
      await session.addItems([{ role: 'user', content: 'Hi' }])
      const sessions = chatStoreSessionStore(storeChatLog(store))
      await sessions.append({ projectKey: 'p', sessionId: 's' }, [{ type: 'user', uuid: 'u1' }, { type: 'user', uuid: 'u1' }])
      const loaded = await sessions.load({ projectKey: 'p', sessionId: 's' })
      console.log((await session.getItems()).length === 1 && loaded.length === 1 ? 'ok' : 'got ' + JSON.stringify(loaded))
    `)
    expect(r.stderr).toBe('')
    expect(r.stdout.trim()).toBe('ok')
  })

  it('keeps an AI SDK call within its window from chatfold/ai-sdk, with ai installed beside it', () => {
    const r = node(`
      import { generateText, wrapLanguageModel } from 'ai'
      import { MockLanguageModelV3 } from 'ai/test'
      import { contextMiddleware } from 'chatfold/ai-sdk'
      let sent
      const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } }
      const mock = new MockLanguageModelV3({ doGenerate: async ({ prompt }) => ((sent = prompt), { content: [{ type: 'text', text: 'ok' }], finishReason: { unified: 'stop' }, usage, warnings: [] }) })
      const model = wrapLanguageModel({ model: mock, middleware: contextMiddleware({ contextWindow: 3000, reserveTokens: 500, pruning: 'off', keepRecentTokens: 300 }) })
      const messages = [{ role: 'user', content: 'The total is off.' }]
      for (let i = 0; i < 24; i++) messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c' + i, toolName: 'read', input: {} }] }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c' + i, toolName: 'read', output: { type: 'text', value: 'line '.repeat(300) } }] })
      messages.push({ role: 'user', content: 'Fix it.' })
      const r = await generateText({ model, messages })
      console.log(JSON.stringify({ text: r.text, compacted: r.providerMetadata.chatfold.compaction !== null, last: sent.at(-1), shorter: sent.length < messages.length }))
    `)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ text: 'ok', compacted: true, last: { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] }, shorter: true })
  })

  it('has every exports entry on disk', () => {
    for (const [key, entry] of Object.entries(pkg.exports)) {
      expect(existsSync(join(installed, entry.default)), `${key} default`).toBe(true)
      expect(existsSync(join(installed, entry.types)), `${key} types`).toBe(true)
    }
  })

  it('imports from plain Node: decode, estimate with o200k_base, prune and compact inline', () => {
    const r = node(`
      import { createEngine, fromJSONL, textMessage, toJSONL } from 'chatfold'
      const history = [textMessage('user', 'Hello, world!'), textMessage('assistant', 'Hi! How can I help?')]
      const back = fromJSONL(toJSONL(history))
      if (back._tag !== 'Right') throw new Error('round trip failed')
      const engine = createEngine({ encoding: 'o200k_base' })
      if (engine.mode !== 'inline') throw new Error('expected inline on Node, got ' + engine.mode)
      const e = await engine.estimate(back.right)
      const s = await engine.open('s', back.right)
      console.log(JSON.stringify({ total: e.total, session: await s.tokens() }))
      engine.dispose()
    `)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ total: 19, session: { messages: 2, tokens: 19 } })
  })

  it('runs the engine in a worker_threads worker from chatfold/node, and exits by itself when idle', () => {
    const r = node(`
      import { textMessage } from 'chatfold'
      import { createNodeEngine } from 'chatfold/node'
      const engine = createNodeEngine({ encoding: 'o200k_base' })
      const s = await engine.open('s', [textMessage('user', 'Hello, world!')])
      await s.append([textMessage('assistant', 'Hi! How can I help?')])
      console.log(JSON.stringify({ mode: engine.mode, tokens: await s.tokens() }))
    `)
    expect(r.error).toBeUndefined()
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual({ mode: 'worker', tokens: { messages: 2, tokens: 19 } })
  })

  it('loads from CommonJS with require() (Node 20.19+ loads ES modules synchronously) and with import()', () => {
    writeFileSync(
      join(scratch, 'consumer.cjs'),
      `const { textMessage, textContent } = require('chatfold')
const { saveHistory } = require('chatfold/node')
import('chatfold').then((m) => {
  console.log(JSON.stringify({ required: textContent(textMessage('user', 'from require')), save: typeof saveHistory, same: m.textMessage === textMessage }))
})
`,
    )
    const r = spawnSync(process.execPath, ['consumer.cjs'], { cwd: scratch, encoding: 'utf8', timeout: 60_000 })
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ required: 'from require', save: 'function', same: true })
  })

  it('imports the concept entries from plain Node, and a bundle of the table-free ones holds nothing of gpt-tokenizer', async () => {
    const r = node(`
      import { countMessages, smartHeuristic } from 'chatfold/tokens'
      import * as tokens from 'chatfold/tokens'
      import { textMessage } from 'chatfold/message'
      import { forLLM } from 'chatfold/history'
      console.log(JSON.stringify({ n: countMessages(smartHeuristic)(forLLM([textMessage('user', 'Hello, world!')])), loader: 'loadEstimator' in tokens }))
    `)
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual({ n: expect.any(Number), loader: false })
    const tableFree = TABLE_FREE_ENTRIES.map((f) => f.split('/')[1])
    writeFileSync(join(scratch, 'edge.js'), tableFree.map((e, i) => `export * as e${i} from 'chatfold/${e}'\n`).join(''))
    const result = await build({
      entryPoints: [join(scratch, 'edge.js')],
      absWorkingDir: scratch,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      outdir: join(scratch, 'edge-bundle'),
      write: false,
      logLevel: 'silent',
      metafile: true,
    })
    expect(result.errors).toEqual([])
    expect(Object.keys(result.metafile.inputs).filter((i) => i.includes('gpt-tokenizer'))).toEqual([])
    expect(result.outputFiles.map((f) => f.path.split('/').pop())).toEqual(['edge.js'])
  })

  it('resolves the worker entry point', () => {
    const r = node(`console.log(import.meta.resolve('chatfold/worker'))`)
    expect(r.stdout.trim()).toMatch(/\/dist\/workers\/engine\.worker\.js$/)
  })

  it('type-checks a consumer under nodenext with the shipped declarations', () => {
    writeFileSync(
      join(scratch, 'consumer.ts'),
      `import { pipe } from 'fp-ts/function'
import { createEngine, type Engine, type Messages, textContent, textMessage } from 'chatfold'
import { createNodeEngine } from 'chatfold/node'
const history: Messages = [textMessage('user', 'Hello')]
const engine: Engine = createEngine({ mode: 'inline', encoding: 'heuristic' })
const worker: Engine = createNodeEngine({ encoding: 'o200k_base' })
export const first: string = pipe(history[0]!, textContent)
export const total: Promise<number> = engine.estimate(history).then((e) => e.total)
worker.dispose()
`,
    )
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: ['node'],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noEmit: true,
        },
        files: ['consumer.ts'],
      }),
    )
    const r = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', scratch], { cwd: scratch, encoding: 'utf8' })
    expect(r.stdout + r.stderr).toBe('')
    expect(r.status).toBe(0)
  })

  it('bundles for the browser, with the tokenizer ranks out of the main chunk', async () => {
    writeFileSync(join(scratch, 'app.js'), `import { createEngine } from 'chatfold'\nexport const engine = createEngine({ mode: 'auto' })\n`)
    const result = await build({
      entryPoints: [join(scratch, 'app.js')],
      absWorkingDir: scratch,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'browser',
      outdir: join(scratch, 'bundle'),
      write: false,
      logLevel: 'silent',
      metafile: true,
    })
    expect(result.errors).toEqual([])
    const main = result.outputFiles.find((f) => f.path.endsWith('app.js'))
    expect(main).toBeDefined()
    expect(main!.contents.byteLength).toBeLessThan(400_000)
    expect(Math.max(...result.outputFiles.map((f) => f.contents.byteLength))).toBeGreaterThan(1_000_000)
  })
})
