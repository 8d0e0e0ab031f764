/**
 * Clients that ask and never read their answers: `chatfold serve` (a child process, so that its
 * memory is its own) on a store whose snapshot is 4 MB, 400 connections with small receive buffers
 * that send a GET of the snapshot and never read it. Honest requests are still answered, and the
 * server's resident memory (read from /proc/<pid>/status) stays under 500 MB, checked after every
 * batch of non-readers is answered (the run stops at the first reading over it).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { call, startChild, stopChild } from '../support/served-store.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
const TOKEN = 'unread-answers-token-0123456789'
const READ_TOKEN = 'unread-answers-read-token-0123456'
const MB = 1024 * 1024
const LIMIT_BYTES = 500 * MB

const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

/** The resident memory of a process, in bytes. */
const rss = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (m === null) throw new Error(`no VmRSS for ${pid}`)
  return Number(m[1]) * 1024
}

/**
 * Opens `n` connections with a 4 kB receive buffer, each sending one GET of the snapshot; prints
 * `answered <k>` each time 50 more have the start of an answer waiting (peeked, never read), then
 * `all <statuses>` and holds every connection open until its stdin closes.
 */
const NON_READERS = String.raw`
import selectors, socket, sys
port, n, token = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
req = ('GET /environment/modalities/chat HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer %s\r\n\r\n' % token).encode()
sel = selectors.DefaultSelector()
socks = []
for i in range(n):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(('127.0.0.1', port))
    s.sendall(req)
    socks.append(s)
    sel.register(s, selectors.EVENT_READ)
statuses = {}
answered = 0
while answered < n:
    events = sel.select(120)
    if not events:
        break
    for key, _ in events:
        head = key.fileobj.recv(12, socket.MSG_PEEK)
        status = head[9:12].decode() if len(head) >= 12 else 'closed'
        statuses[status] = statuses.get(status, 0) + 1
        sel.unregister(key.fileobj)
        answered += 1
        if answered % 50 == 0:
            print('answered %d' % answered, flush=True)
print('all ' + ' '.join('%s:%d' % kv for kv in sorted(statuses.items())), flush=True)
sys.stdin.read()
for s in socks:
    s.close()
`

/** Starts the non-readers; resolves on each line they print through `onLine`, and to the child. */
const nonReaders = (port: number, n: number, onLine: (line: string) => void): ChildProcess => {
  const child = spawn('python3', ['-c', NON_READERS, String(port), String(n), READ_TOKEN], { stdio: ['pipe', 'pipe', 'inherit'] })
  let buffered = ''
  child.stdout?.on('data', (d: Buffer) => {
    buffered += d.toString()
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      onLine(buffered.slice(0, i))
      buffered = buffered.slice(i + 1)
    }
  })
  return child
}

describe('clients that never read their answers', () => {
  it('400 of them on a 4 MB snapshot: honest requests are answered and the server stays under 500 MB', { timeout: 240_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-unread-'))
    dirs.push(dir)
    const env = { ...process.env, CHATFOLD_TOKEN: TOKEN, CHATFOLD_READ_TOKEN: READ_TOKEN }
    const server = await startChild(
      process.execPath,
      [bin, 'serve', '--data', join(dir, 'data'), '--port', '0'],
      /listening on (http:\/\/127\.0\.0\.1:(\d+))\n/,
      { env },
    )
    const url = server.match[1] as string
    const pid = server.process.pid as number
    let readers: ChildProcess | undefined
    try {
      // 40 messages of 100 kB: a 4 MB snapshot
      for (let i = 0; i < 40; i++)
        expect((await call(url, 'POST', '/modalities/chat/submit', { role: 'user', content: `${i} ${'x'.repeat(100_000)}` }, TOKEN)).status).toBe(201)
      const before = await fetch(`${url}/environment/modalities/chat`, { headers: { authorization: `Bearer ${READ_TOKEN}` } })
      expect((await before.arrayBuffer()).byteLength).toBeGreaterThan(4_000_000)

      let peak = rss(pid)
      let over = false
      const all = await new Promise<string>((resolve) => {
        readers = nonReaders(Number(server.match[2]), 400, (line) => {
          if (line.startsWith('all')) return resolve(line)
          peak = Math.max(peak, rss(pid))
          if (peak > LIMIT_BYTES && !over) {
            over = true
            resolve(`stopped: the server holds ${Math.round(peak / MB)} MB after ${line}`)
          }
        })
        readers.once('exit', () => resolve('the non-readers ended'))
      })
      expect(all).toMatch(/^all /)
      peak = Math.max(peak, rss(pid))
      // honest requests while the 400 hold their connections: reads (full and read-only token) and a write
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${url}/environment/modalities/chat`, { headers: { authorization: `Bearer ${READ_TOKEN}` }, signal: AbortSignal.timeout(60_000) })
        expect(r.status).toBe(200)
        expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(4_000_000)
        const q = await call(url, 'POST', '/environment/modalities/chat/query', { limit: 1 }, READ_TOKEN)
        expect(q.status).toBe(200)
        expect((await call(url, 'POST', '/modalities/chat/submit', { role: 'user', content: `honest ${i}` }, TOKEN)).status).toBe(201)
        peak = Math.max(peak, rss(pid))
      }
      expect(Math.round(peak / MB)).toBeLessThan(LIMIT_BYTES / MB)
    } finally {
      readers?.stdin?.end()
      if (readers !== undefined) await stopChild(readers, 'SIGKILL')
      await stopChild(server.process, 'SIGKILL')
    }
  })
})
