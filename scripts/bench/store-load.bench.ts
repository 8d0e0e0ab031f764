/**
 * The chat store under load, and what one apply costs.
 *
 * 1. A bounded load test on loopback: one `node:http` server (a child process, so that it has a
 *    core of its own) runs the chat handler; 50 concurrent clients send 10,000 submits in all
 *    (200 each, to their own conversation, one at a time), over keep-alive connections to
 *    127.0.0.1. Prints throughput and p50/p99 latency, then checks from the snapshot that every
 *    message is stored exactly once and each client's messages are in the order it sent them.
 *    Bounded: the count is fixed and the run is cut at 120 s.
 * 2. `applyInput` on a growing `ChatState`: appends in time order and inserts out of order.
 *
 * Run alone with `npm run bench store-load`.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { createChatHandler } from '../../src/store/http.ts'
import type { ChatInput } from '../../src/store/input.ts'
import { applyInput, type ChatState, emptyState } from '../../src/store/state.ts'
import { getRecentMessages, query } from '../../src/store/query.ts'
import { createChatStore } from '../../src/store/store.ts'
import { serve } from '../../src/node/http.ts'
import { ms, table } from './lib.ts'
import { prng } from '../../sample/session.ts'

const SERVE_FLAG = '--serve-chat-store'
const CLIENTS = 50
const TOTAL = 10_000
const DEADLINE_MS = 120_000

// --- the server (child process) ---

if (process.argv.includes(SERVE_FLAG)) {
  const running = await serve(createChatHandler(createChatStore()), { hostname: '127.0.0.1', port: 0 })
  process.stdout.write(`${running.url}\n`)
}

// --- the clients ---

const startServer = (): Promise<{ readonly url: string; readonly child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), SERVE_FLAG], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(out)
      if (m?.[1] !== undefined) resolve({ url: m[1], child })
    })
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)))
  })

type Reply = { readonly status: number; readonly body: string }

const send = (agent: Agent, url: string, method: 'GET' | 'POST', path: string, body?: string): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method,
      agent,
      headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => void (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })

const percentile = (sorted: ReadonlyArray<number>, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN

const loadTest = async (): Promise<void> => {
  const { url, child } = await startServer()
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
  const latencies: number[] = []
  const failures: string[] = []
  const deadline = Date.now() + DEADLINE_MS
  const perClient = TOTAL / CLIENTS
  try {
    const t0 = performance.now()
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; i < perClient && Date.now() < deadline; i++) {
          const body = JSON.stringify({
            role: i % 2 === 0 ? 'user' : 'assistant',
            content: `client ${c}, message ${i}: ${'the quick brown fox jumps over the lazy dog '.repeat(4)}`,
            conversation_id: `client-${c}`,
            metadata: { client: c, seq: i },
          })
          const s = performance.now()
          const r = await send(agent, url, 'POST', '/modalities/chat/submit', body)
          latencies.push(performance.now() - s)
          if (r.status !== 201) failures.push(`client ${c} #${i}: ${r.status} ${r.body.slice(0, 200)}`)
        }
      }),
    )
    const wall = performance.now() - t0

    // every message once, each client's in the order it sent them
    const snap = JSON.parse((await send(agent, url, 'GET', '/environment/modalities/chat')).body) as {
      update_count: number
      messages: ReadonlyArray<{ message_id: string; conversation_id: string; metadata?: { client: number; seq: number } }>
    }
    const ids = new Set(snap.messages.map((m) => m.message_id))
    const byClient = new Map<string, number[]>()
    for (const m of snap.messages) byClient.set(m.conversation_id, [...(byClient.get(m.conversation_id) ?? []), m.metadata?.seq ?? -1])
    const inOrder = [...Array(CLIENTS).keys()].every((c) => {
      const seqs = byClient.get(`client-${c}`) ?? []
      return seqs.length === perClient && seqs.every((s, i) => s === i)
    })
    const once = snap.messages.length === TOTAL && ids.size === TOTAL && snap.update_count === TOTAL
    const sorted = [...latencies].sort((a, b) => a - b)
    table(
      `chat store over HTTP: ${TOTAL.toLocaleString('en')} submits, ${CLIENTS} concurrent clients, one node:http server on 127.0.0.1`,
      ['measure', 'value'],
      [
        ['submits answered', `${latencies.length.toLocaleString('en')} (${failures.length} not 201)`],
        ['wall time', `${ms(wall)} ms`],
        ['throughput', `${Math.round((latencies.length / wall) * 1000).toLocaleString('en')} req/s`],
        ['latency p50', `${ms(percentile(sorted, 0.5))} ms`],
        ['latency p99', `${ms(percentile(sorted, 0.99))} ms`],
        ['latency max', `${ms(sorted[sorted.length - 1] ?? Number.NaN)} ms`],
        [
          'stored once each',
          once
            ? `yes (${snap.messages.length.toLocaleString('en')} messages, ${ids.size.toLocaleString('en')} ids)`
            : `NO: ${snap.messages.length} messages, ${ids.size} ids, update_count ${snap.update_count}`,
        ],
        ['each client in order', inOrder ? 'yes' : 'NO'],
      ],
    )
    for (const f of failures.slice(0, 5)) console.log(`  failure: ${f}`)
    if (!once || !inOrder || failures.length > 0) process.exitCode = 1
  } finally {
    agent.destroy()
    child.kill()
  }
}

// --- applyInput on a growing state ---

const inputsOf = (n: number, order: 'in order' | 'out of order'): ChatInput[] => {
  const rng = prng(7)
  const base = Date.UTC(2024, 2, 15)
  const at = (i: number) => (order === 'in order' ? i : Math.floor(rng.next() * n))
  return Array.from({ length: n }, (_, i) => ({
    modality_type: 'chat',
    timestamp: new Date(base + at(i) * 1000).toISOString(),
    input_id: `in-${String(i).padStart(8, '0')}`,
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: `message ${i}`,
    conversation_id: `c${i % 20}`,
  }))
}

const applyBench = (): void => {
  const rows: string[][] = []
  for (const n of [10_000, 100_000]) {
    for (const order of ['in order', 'out of order'] as const) {
      const inputs = inputsOf(n, order)
      let s: ChatState = emptyState({ maxHistorySize: Infinity })
      const t0 = performance.now()
      for (const i of inputs) {
        const r = applyInput(i)(s)
        if (E.isRight(r)) s = r.right
      }
      const total = performance.now() - t0
      const q0 = performance.now()
      for (let k = 0; k < 1_000; k++) getRecentMessages(10, `c${k % 20}`)(s)
      const recent = (performance.now() - q0) / 1_000
      const f0 = performance.now()
      const found = query({ search: 'message 4242' })(s).length
      const scan = performance.now() - f0
      rows.push([
        `${n.toLocaleString('en')} ${order}`,
        `${((total / n) * 1000).toFixed(1)} µs`,
        `${ms(total)} ms`,
        `${(recent * 1000).toFixed(1)} µs`,
        `${ms(scan)} ms (${found})`,
      ])
    }
  }
  table('ChatState: applyInput into 20 conversations, no history limit', ['inputs', 'per apply', 'all', 'last 10 of a conversation', 'full-text search'], rows)
}

export default async function storeLoad(): Promise<void> {
  applyBench()
  await loadTest()
}
