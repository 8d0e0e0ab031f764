/**
 * A served file store whose files another program changes: the log truncated (a `copytruncate`
 * rotation), appended to, or replaced by another file, and the LOCK taken by another process.
 * Before each append the server checks the log is the file it wrote and of the length it wrote,
 * and that the LOCK is its own: after any of these, no write is answered 2xx (503 saying why),
 * reads are still served, and the server's log tells it once.
 */
import { appendFile, mkdtemp, readdir, rename, rm, truncate, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { serveChatStore } from '../../src/node/serve.ts'

const dirs: string[] = []
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** A store served from a fresh directory holding one message; its log file; what the server logged. */
const served = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-changed-'))
  dirs.push(dir)
  const lines: string[] = []
  const s = await serveChatStore({ dataDir: dir, port: 0, handleSignals: false, log: (l) => void lines.push(l) })
  const post = (content: string) =>
    fetch(`${s.url}/modalities/chat/submit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ role: 'user', content }),
    })
  const read = async () => {
    const r = await fetch(`${s.url}/environment/modalities/chat`)
    expect(r.status).toBe(200)
    return ((await r.json()) as { messages: Array<{ content: string }> }).messages.map((m) => m.content)
  }
  expect((await post('kept')).status).toBe(201)
  const log = join(dir, (await readdir(dir)).find((n) => n.startsWith('log-')) as string)
  return { dir, log, lines, post, read, close: () => s.close() }
}

const cases: ReadonlyArray<readonly [string, (s: { dir: string; log: string }) => Promise<unknown>, RegExp]> = [
  ['truncated (copytruncate)', (s) => truncate(s.log, 0), /its log .* was truncated \(0 bytes where \d+ were written\)/],
  ['truncated to a shorter length', (s) => truncate(s.log, 10), /its log .* was truncated \(10 bytes where \d+ were written\)/],
  [
    'appended to by another program',
    (s) => appendFile(s.log, 'a line of another program\n'),
    /its log .* was appended to by another program \(\d+ bytes where \d+ were written\)/,
  ],
  [
    'replaced by another file',
    async (s) => {
      await writeFile(`${s.log}.other`, '')
      await rename(`${s.log}.other`, s.log)
    },
    /its log .* was replaced by another file/,
  ],
  [
    'its LOCK taken by another process',
    async (s) => {
      await unlink(join(s.dir, 'LOCK'))
      await writeFile(join(s.dir, 'LOCK'), `${process.pid} - 00ff other-host 2024-03-15T10:00:00.000Z\n`)
    },
    /its LOCK .* was replaced: process \d+ holds it \(on other-host, since 2024-03-15T10:00:00.000Z\): another process may be writing this store/,
  ],
  ['its LOCK removed', (s) => unlink(join(s.dir, 'LOCK')), /its LOCK .* was removed: another process may be writing this store/],
]

describe('a log changed behind the server', () => {
  it.each(cases)('%s: every later write is a 503 saying why, reads are served, the log tells it once', async (_, change, why) => {
    const s = await served()
    try {
      await change(s)
      const refused = await Promise.all(['a', 'b', 'c'].map(s.post))
      expect(refused.map((r) => r.status)).toEqual([503, 503, 503])
      const body = (await refused[0]?.json()) as { error: { code: string; message: string } }
      expect(body.error).toMatchObject({ code: 'store_unavailable', message: expect.stringMatching(why) })
      expect((await s.post('d')).status).toBe(503)
      expect(await s.read()).toEqual(['kept'])
      expect(s.lines.filter((l) => why.test(l))).toHaveLength(1)
    } finally {
      await s.close()
    }
  })
})
