/**
 * `chatfold serve` speaks Durable Streams: the protocol's published conformance suite runs against
 * its `/streams` endpoint, and every test the protocol's reference server (`@durable-streams/server`)
 * passes on this machine (run once, in a child vitest, before) must pass here too. A test the
 * reference fails is skipped here, and counted.
 */
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runConformanceTests } from '@durable-streams/server-conformance-tests'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Child, startChild, stopChild } from '../support/served-store.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const bin = join(root, 'bin', 'chatfold.mjs')

type Task = { readonly name: string; readonly suite?: Task | undefined }
/** A test's name with the describes it sits in, as the JSON reporter's `fullName` gives it. */
const fullName = (task: Task): string => {
  const names: string[] = []
  for (let t: Task | undefined = task; t !== undefined; t = t.suite) if (t.name !== '' && !t.name.endsWith('.ts')) names.unshift(t.name)
  return names.join(' ')
}

type Outcome = { readonly passed: ReadonlySet<string>; readonly failed: ReadonlySet<string> }
let reference: Outcome | undefined
const config = { baseUrl: '' }
let server: Child | undefined
let dir = ''
const ran = { passed: 0, skipped: 0 }

beforeAll(async () => {
  const out = join(await mkdtemp(join(tmpdir(), 'chatfold-streams-ref-')), 'reference.json')
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      'test/deploy/support/streams-reference.config.ts',
      '--reporter=json',
      `--outputFile=${out}`,
    ],
    { cwd: root, encoding: 'utf8', timeout: 600_000 },
  )
  const report = JSON.parse(await readFile(out, 'utf8').catch(() => `{"testResults":[]}`)) as {
    testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>
  }
  const results = report.testResults.flatMap((f) => f.assertionResults)
  if (results.length === 0) throw new Error(`the reference run reported nothing (exit ${r.status}):\n${(r.stdout + r.stderr).slice(-2000)}`)
  reference = {
    passed: new Set(results.filter((a) => a.status === 'passed').map((a) => a.fullName)),
    failed: new Set(results.filter((a) => a.status !== 'passed').map((a) => a.fullName)),
  }
  dir = await mkdtemp(join(tmpdir(), 'chatfold-streams-'))
  server = await startChild(process.execPath, [bin, 'serve', '--data', dir, '--port', '0', '--host', '127.0.0.1'], /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)
  const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(server.output())
  config.baseUrl = `${m?.[1] ?? ''}/streams`
}, 660_000)

afterAll(async () => {
  if (server !== undefined) await stopChild(server.process, 'SIGTERM')
  await rm(dir, { recursive: true, force: true })
  console.log(
    `Durable Streams conformance: chatfold serve passed ${ran.passed}; the reference passed ${reference?.passed.size} and failed ${reference?.failed.size} (skipped here)`,
  )
})

beforeEach((context) => {
  const name = fullName(context.task)
  if (name.startsWith('chatfold serve and the reference')) return
  if (reference !== undefined && !reference.passed.has(name)) {
    ran.skipped++
    context.skip()
  }
  context.onTestFinished((t) => {
    if (t.task.result?.state === 'pass') ran.passed++
  })
})

// A test is tried twice: under the suite's load on a busy machine a pooled keep-alive socket can be
// closed by the server as the client reuses it ("other side closed"), a transport race and not a
// protocol failure. The describe has no name, so tests keep the reference run's names.
describe('', { retry: 1 }, () => {
  runConformanceTests(config)
})

describe('chatfold serve and the reference', () => {
  it('the reference run reported its tests', () => {
    expect(reference?.passed.size ?? 0).toBeGreaterThan(0)
  })

  it('serves each conversation as a JSON stream: a submit appears on it once kept', async () => {
    const root = config.baseUrl.replace(/\/streams$/, '')
    const conversation = `${config.baseUrl}/conversations/served-1`
    const empty = await fetch(`${conversation}?offset=-1`)
    expect(empty.status).toBe(404) // no message yet, no stream
    await empty.body?.cancel()
    const submitted = await fetch(`${root}/modalities/chat/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'user', content: 'hello', conversation_id: 'served-1', message_id: 'sm1' }),
    })
    expect(submitted.status).toBeLessThan(300)
    await submitted.body?.cancel()
    // the stream is published once the store has flushed the submit: a long-poll from the start has it
    const read = await fetch(`${conversation}?offset=-1`)
    expect(read.status).toBe(200)
    expect(((await read.json()) as Array<{ message_id: string }>).map((m) => m.message_id)).toEqual(['sm1'])
  })
})
