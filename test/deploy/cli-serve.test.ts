/**
 * `chatfold serve`: the command parses its options, prints where it listens and what it
 * recovered, serves the store from its data directory, and stops cleanly on SIGTERM and SIGINT.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { spawnSync } from 'node:child_process'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { call, startChild, stopChild } from './../support/served-store.ts'

// the package's own bin, as `npx chatfold serve` runs it (the TypeScript source through tsx before a build)
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

const exited = (child: import('node:child_process').ChildProcess) =>
  new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))))

describe('chatfold serve', { timeout: 60_000 }, () => {
  it('serves the data directory, says what it recovered, and stops cleanly on SIGTERM and SIGINT', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'chatfold-cli-')), 'chat-data')
    dirs.push(dirname(dir))
    const args = [bin, 'serve', '--data', dir, '--port', '0', '--host', '127.0.0.1']
    const a = await startChild(process.execPath, args, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)
    expect(a.output()).toContain(`chatfold: a new store in ${dir}`)
    const url = a.match[1] as string
    expect((await call(url, 'POST', '/modalities/chat/submit', { role: 'user', content: 'Hi' })).status).toBe(201)
    a.process.kill('SIGTERM')
    expect(await exited(a.process)).toBe(0)
    expect(a.output()).toContain('chatfold: SIGTERM: closing')
    expect(await readdir(dir)).not.toContain('LOCK')

    const b = await startChild(process.execPath, args, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)
    expect(b.output()).toMatch(new RegExp(`chatfold: recovered 1 message from ${dir} \\(snapshot at record 0, 2 records replayed\\)`))
    const snap = (await call(b.match[1] as string, 'GET', '/environment/modalities/chat')).body
    expect(snap.messages.map((m: { content: string }) => m.content)).toEqual(['Hi'])
    b.process.kill('SIGINT')
    expect(await exited(b.process)).toBe(0)
  })

  it('takes its token from CHATFOLD_TOKEN (asked of every request), and --simulator turns the simulator routes on', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'chatfold-cli-')), 'chat-data')
    dirs.push(dirname(dir))
    const token = 'a-token-from-the-environment-0123'
    const c = await startChild(process.execPath, [bin, 'serve', '--data', dir, '--port', '0', '--simulator'], /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, {
      env: { ...process.env, CHATFOLD_TOKEN: token },
    })
    try {
      const url = c.match[1] as string
      expect(c.output()).toContain('chatfold: asks a bearer token; simulator routes on')
      expect((await call(url, 'POST', '/modalities/chat/submit', { role: 'user', content: 'Hi' }, null)).status).toBe(401)
      expect((await call(url, 'POST', '/modalities/chat/submit', { role: 'user', content: 'Hi' }, token)).status).toBe(201)
      expect((await call(url, 'GET', '/simulator', undefined, token)).status).toBe(200)
    } finally {
      await stopChild(c.process, 'SIGKILL')
    }
  })

  it('refuses a bad port with a clear message', () => {
    const r = spawnSync(process.execPath, [bin, 'serve', '--port', 'eighty'], { encoding: 'utf8', timeout: 30_000 })
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain("option '-p, --port <port>' argument 'eighty' is invalid. expected a port number, 0 to 65535")
  })
})
