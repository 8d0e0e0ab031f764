/**
 * `chatfold serve` (a child process) when the medium refuses a write while it serves: the largest
 * file allowed reached (EFBIG, here a file size limit set with `prlimit`) is a 507 like a full disk,
 * and a log that can no longer be written (EPERM: made immutable with `chattr +i`; EROFS and EACCES
 * are answered alike) is a 503; in both the server keeps running and serving reads. Linux, root and
 * an ext file system for `chattr`; skipped otherwise, saying so.
 */
import { spawnSync } from 'node:child_process'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { call, startChild, stopChild } from '../support/served-store.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
const dirs: string[] = []
afterAll(async () => {
  for (const d of dirs) spawnSync('chattr', ['-R', '-i', d])
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})
const fresh = async () => {
  const d = await mkdtemp(join(tmpdir(), 'chatfold-refusals-'))
  dirs.push(d)
  return d
}

const linux = process.platform === 'linux'
const canLimit = linux && spawnSync('prlimit', ['--version']).status === 0
const canFreeze = await (async () => {
  if (!linux || process.getuid?.() !== 0) return false
  const d = await fresh()
  const probe = join(d, 'probe')
  spawnSync('touch', [probe])
  return spawnSync('chattr', ['+i', probe]).status === 0 && spawnSync('chattr', ['-i', probe]).status === 0
})()
if (!canLimit) console.warn('write-refusals: prlimit is missing; the EFBIG test is skipped')
if (!canFreeze) console.warn('write-refusals: chattr +i needs root on an ext file system; the EPERM test is skipped')

const serve = (dir: string, prefix: ReadonlyArray<string> = []) => {
  const [command, ...args] = [...prefix, process.execPath, bin, 'serve', '--data', dir, '--port', '0']
  return startChild(command as string, args, /listening on (http:\/\/127\.0\.0\.1:\d+)\n/)
}
const submit = (url: string, content: string) => call(url, 'POST', '/modalities/chat/submit', { role: 'user', content }, null)
const contents = async (url: string): Promise<string[]> => {
  const r = await call(url, 'GET', '/environment/modalities/chat', undefined, null)
  expect(r.status).toBe(200)
  return (r.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content)
}

describe('chatfold serve when the medium refuses a write', { timeout: 120_000 }, () => {
  it.skipIf(!canLimit)('EFBIG (the largest file allowed) is a 507; reads go on and the server keeps running', async () => {
    const dir = join(await fresh(), 'data')
    const server = await serve(dir, ['prlimit', '--fsize=262144', '--'])
    try {
      const url = server.match[1] as string
      const accepted: string[] = []
      let status = 201
      for (let i = 0; i < 100 && status === 201; i++) {
        const content = `${i}:${'x'.repeat(16_000)}`
        status = (await submit(url, content)).status
        if (status === 201) accepted.push(content)
      }
      expect(status).toBe(507)
      expect(accepted.length).toBeGreaterThan(0)
      // still no room for such a record: the part the limit let through was cut back
      expect((await submit(url, `again:${'x'.repeat(16_000)}`)).status).toBe(507)
      expect(await contents(url)).toEqual(accepted)
      expect(server.process.exitCode).toBeNull()
      expect(server.output()).toContain('(EFBIG)')
    } finally {
      await stopChild(server.process, 'SIGTERM')
    }
    // the log was cut back to whole records: the next start reads every acknowledged write
    const again = await serve(dir)
    try {
      expect(again.output()).not.toContain('torn')
      expect((await contents(again.match[1] as string)).length).toBeGreaterThan(0)
    } finally {
      await stopChild(again.process, 'SIGTERM')
    }
  })

  it.skipIf(!canFreeze)('a log that can no longer be written (EPERM) is a 503 naming why; reads go on and the server keeps running', async () => {
    const dir = join(await fresh(), 'data')
    const server = await serve(dir)
    try {
      const url = server.match[1] as string
      expect((await submit(url, 'before')).status).toBe(201)
      for (const n of await readdir(dir)) if (n.startsWith('log-')) expect(spawnSync('chattr', ['+i', join(dir, n)]).status).toBe(0)
      const refused = await submit(url, 'refused')
      expect(refused.status).toBe(503)
      expect(JSON.stringify(refused.body)).toContain('EPERM')
      expect((await submit(url, 'refused again')).status).toBe(503)
      expect(await contents(url)).toEqual(['before'])
      expect(server.process.exitCode).toBeNull()
    } finally {
      await stopChild(server.process, 'SIGTERM')
      spawnSync('chattr', ['-R', '-i', dir])
    }
  })
})
