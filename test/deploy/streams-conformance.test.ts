/**
 * The served forms of the store speak Durable Streams: the protocol's published conformance suite
 * runs against `chatfold serve` (file and `--postgres`, on a real PostgreSQL server), the Cloudflare
 * Durable Object under `workerd serve` and `deno serve` with Deno KV, and every test the protocol's reference server (`@durable-streams/server`) passes on
 * this machine must pass on each. The five runs (the reference's and the four servers') are child
 * vitests side by side, the suite being mostly waits: the whole takes about as long as one.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Child, freePort, startChild, stopChild, waitUntilUp } from '../support/served-store.ts'
import { ROOT, serveWorkerd, type Workerd } from './support/workerd.ts'
import { type PostgresServer, startPostgres } from '../support/postgres-server.ts'

const bin = join(ROOT, 'bin', 'chatfold.mjs')

type Outcome = { readonly passed: ReadonlySet<string>; readonly failed: ReadonlySet<string> }

/** Runs the suite in a child vitest against `baseUrl` (the reference server when undefined): the tests passed and failed, by full name. */
const conformance = async (baseUrl: string | undefined, out: string): Promise<Outcome> => {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      'test/deploy/support/streams-conformance.config.ts',
      '--reporter=json',
      `--outputFile=${out}`,
    ],
    { cwd: ROOT, env: { ...process.env, ...(baseUrl === undefined ? {} : { CHATFOLD_STREAMS_URL: baseUrl }) }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let tail = ''
  const keep = (b: Buffer) => (tail = (tail + b.toString()).slice(-2000))
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const report = JSON.parse(await readFile(out, 'utf8').catch(() => `{"testResults":[]}`)) as {
    testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>
  }
  const results = report.testResults.flatMap((f) => f.assertionResults)
  if (results.length === 0) throw new Error(`the conformance run against ${baseUrl ?? 'the reference'} reported nothing (exit ${code}):\n${tail}`)
  return {
    passed: new Set(results.filter((a) => a.status === 'passed').map((a) => a.fullName)),
    failed: new Set(results.filter((a) => a.status !== 'passed').map((a) => a.fullName)),
  }
}

const names = ['chatfold serve', 'chatfold serve --postgres', 'workerd, a Durable Object', 'deno serve, Deno KV'] as const
type Name = (typeof names)[number]
const outcomes = new Map<Name | 'reference', Outcome>()
const dirs: string[] = []
let serve: Child | undefined
let workerd: Workerd | undefined
let deno: ChildProcess | undefined
let postgres: PostgresServer | undefined
let servePg: Child | undefined
const bases: Partial<Record<Name, string>> = {}

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-streams-'))
  dirs.push(dir)
  const denoPort = await freePort()
  const [s, w, p] = await Promise.all([
    startChild(
      process.execPath,
      [bin, 'serve', '--data', join(dir, 'serve'), '--port', '0', '--host', '127.0.0.1'],
      /listening on (http:\/\/127\.0\.0\.1:\d+)\n/,
    ),
    serveWorkerd(join(ROOT, 'test', 'deploy', 'support', 'workerd-streams.ts'), { durable: true }),
    (async () => {
      postgres = await startPostgres()
      const url = await postgres.createDatabase('conformance')
      return startChild(process.execPath, [bin, 'serve', '--postgres', url, '--port', '0', '--host', '127.0.0.1'], /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)
    })(),
    (async () => {
      deno = spawn(join(ROOT, 'node_modules', '.bin', 'deno'), [
        'serve',
        '--unstable-kv',
        '--allow-read',
        '--allow-write',
        '--allow-env=CHATFOLD_KV',
        '--host',
        '127.0.0.1',
        '--port',
        String(denoPort),
        join('test', 'deploy', 'support', 'deno-streams.ts'),
      ], { cwd: ROOT, env: { ...process.env, CHATFOLD_KV: join(dir, 'deno.sqlite3'), NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'inherit'] })
      await waitUntilUp(`http://127.0.0.1:${denoPort}`, 60_000)
    })(),
  ])
  serve = s
  workerd = w
  servePg = p
  dirs.push(w.dir)
  bases['chatfold serve'] = `${s.match[1]}/streams`
  bases['chatfold serve --postgres'] = `${p.match[1]}/streams`
  bases['workerd, a Durable Object'] = `${w.origin()}/stores/conformance/streams`
  bases['deno serve, Deno KV'] = `http://127.0.0.1:${denoPort}/streams`
  const runs = await Promise.all([
    conformance(undefined, join(dir, 'reference.json')),
    ...names.map((n, i) => conformance(bases[n], join(dir, `server-${i}.json`))),
  ])
  outcomes.set('reference', runs[0] as Outcome)
  names.forEach((n, i) => outcomes.set(n, runs[i + 1] as Outcome))
}, 1_200_000)

afterAll(async () => {
  await Promise.all([
    serve === undefined ? undefined : stopChild(serve.process, 'SIGTERM'),
    servePg === undefined ? undefined : stopChild(servePg.process, 'SIGTERM'),
    workerd?.stop(),
    deno === undefined ? undefined : stopChild(deno, 'SIGKILL'),
  ])
  await postgres?.stop()
  for (const d of dirs) await rm(d, { recursive: true, force: true })
  const ref = outcomes.get('reference')
  console.log(
    `Durable Streams conformance: the reference passed ${ref?.passed.size} of ${(ref?.passed.size ?? 0) + (ref?.failed.size ?? 0)}; ` +
      names.map((n) => `${n} ${outcomes.get(n)?.passed.size} (of them ${[...(ref?.passed ?? [])].filter((t) => outcomes.get(n)?.passed.has(t)).length})`)
        .join(', '),
  )
})

describe('Durable Streams conformance', () => {
  it('the reference run reported its tests', () => {
    expect(outcomes.get('reference')?.passed.size ?? 0).toBeGreaterThan(300)
  })

  for (const name of names) {
    it(`${name} passes every test the reference passes`, () => {
      const mine = outcomes.get(name)
      const missed = [...(outcomes.get('reference')?.passed ?? [])].filter((t) => !mine?.passed.has(t))
      expect(missed).toEqual([])
    })
  }
})

/** Submits a user message to a served chat store at `root`, and checks that it was taken. */
const submit = async (root: string, conversation_id: string, message_id: string): Promise<void> => {
  const submitted = await fetch(`${root}/modalities/chat/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ role: 'user', content: 'hello', conversation_id, message_id }),
  })
  expect(submitted.status).toBeLessThan(300)
  await submitted.body?.cancel()
}

describe('each served form publishes its conversations', () => {
  // on --postgres, the stream is written in the submit's own transaction: there at once too
  for (const name of ['chatfold serve', 'chatfold serve --postgres'] as const) {
    it(`${name}: a submit appears on the conversation stream once kept`, async () => {
      const base = bases[name] ?? ''
      const root = base.replace(/\/streams$/, '')
      const conversation = `${base}/conversations/served-1`
      const empty = await fetch(`${conversation}?offset=-1`)
      expect(empty.status).toBe(404) // no message yet, no stream
      await empty.body?.cancel()
      await submit(root, 'served-1', 'sm1')
      const read = await fetch(`${conversation}?offset=-1`)
      expect(read.status).toBe(200)
      expect(((await read.json()) as Array<{ message_id: string }>).map((m) => m.message_id)).toEqual(['sm1'])
    })
  }

  for (const name of ['workerd, a Durable Object', 'deno serve, Deno KV'] as const) {
    it(`${name}: a submit appears on the conversation stream once kept`, async () => {
      const base = bases[name] ?? ''
      const root = base.replace(/\/streams$/, '')
      await submit(root, 'served-2', 'sm2')
      // published once the store's flush is done, just after the submit's answer: a 404 until then
      let read = await fetch(`${base}/conversations/served-2?offset=-1`)
      for (let i = 0; i < 50 && read.status === 404; i++) {
        await read.body?.cancel()
        await new Promise((r) => setTimeout(r, 100))
        read = await fetch(`${base}/conversations/served-2?offset=-1`)
      }
      expect(read.status).toBe(200)
      expect(((await read.json()) as Array<{ message_id: string }>).map((m) => m.message_id)).toEqual(['sm2'])
    })
  }
})
