/**
 * The command line when things go wrong: `-o` replaces a file whole or not at all (a prune written
 * over its own input and killed midway leaves the input as it was); `serve` that cannot start ends
 * with the exit code that says why and one line (no stack unless `--debug`); `repair-store` moves
 * a damaged record aside and tells what it held.
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, openSync, watch } from 'node:fs'
import { lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { afterEach, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { openDurableStore } from '../../src/store/durable.ts'
import { startChild, stopChild } from '../support/served-store.ts'
import { sampleSession } from '../../sample/session.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
const dirs: string[] = []
const fresh = async () => {
  const d = await mkdtemp(join(tmpdir(), 'chatfold-cli-store-'))
  dirs.push(d)
  return d
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

const cli = async (argv: string[], out: (s: string) => void = () => undefined) => {
  let stdout = ''
  let err = ''
  const code = await run(argv, {
    out: (s) => {
      out(s)
      stdout += s
    },
    err: (s) => void (err += s),
    errIsTTY: false,
  })
  return { code, out: stdout, err }
}

/** One line on stderr, `chatfold: …`, no stack. */
const oneLine = (err: string): string => {
  expect(err.endsWith('\n')).toBe(true)
  expect(err.trimEnd().split('\n')).toHaveLength(1)
  expect(err).not.toMatch(/\n\s+at /)
  return err.trimEnd()
}

/** A store of three messages in a fresh directory, closed. */
const storeOfThree = async (): Promise<string> => {
  const dir = await fresh()
  const s = await openDurableStore(fileStorage(dir))({ startTime: '2024-03-15T10:00:00Z' })
  for (const m of ['m0', 'm1', 'm2']) {
    s.submit({ role: 'user', content: m, message_id: m })
    await s.flush()
  }
  await s.close()
  return dir
}

describe('-o replaces a file whole or not at all', () => {
  it('a prune written over its own input, killed as it starts writing, leaves the input whole', { timeout: 60_000 }, async () => {
    const dir = await fresh()
    const file = join(dir, 'h.jsonl')
    const original = toJSONL(sampleSession({ messages: 3000, seed: 5, maxResult: 20_000 }))
    await writeFile(file, original)
    const child = spawn(process.execPath, [bin, 'prune', file, '-o', file, '--encoding', 'heuristic'], { stdio: 'ignore' })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    // the first change in the directory is the write beginning (a temporary file, or the input truncated): kill then
    const watcher = watch(dir, () => void child.kill('SIGKILL'))
    await exited
    watcher.close()
    const after = await readFile(file, 'utf8')
    if (after !== original) {
      // the write finished before the kill landed: then it is the whole pruned history, every message kept
      const back = fromJSONL(after)
      expect(E.isRight(back) && back.right.length).toBe(original.trimEnd().split('\n').length)
    }
  })

  it('writes -o through a temporary file renamed over the target, leaving no temporary file behind', async () => {
    const dir = await fresh()
    const file = join(dir, 'h.jsonl')
    await writeFile(file, toJSONL(sampleSession({ messages: 40, seed: 2, maxResult: 2_000 })))
    const r = await cli(['prune', file, '-o', file, '--encoding', 'heuristic'])
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(E.isRight(fromJSONL(await readFile(file, 'utf8')))).toBe(true)
    expect(await readdir(dir)).toEqual(['h.jsonl'])
  })
})

describe('serve that cannot start, and repair-store', () => {
  it('a damaged store: exit 5, one line naming the record and repair-store; repair-store moves it aside and says what it held', async () => {
    const dir = await storeOfThree()
    const file = join(dir, 'log-000000000001.jsonl')
    await writeFile(file, (await readFile(file, 'utf8')).replace('"m2"', '"m9"'))
    const r = await cli(['serve', '--data', dir, '--port', '0'])
    expect(r.code).toBe(EXIT.damaged)
    expect(oneLine(r.err)).toBe(
      `chatfold: Cannot recover the store: record 4 (${file}, line 4, byte ${
        (await readFile(file, 'utf8')).split('\n').slice(0, 3).join('\n').length + 1
      }) is corrupt: checksum mismatch; \`chatfold repair-store ${dir}\` moves the damaged records aside`,
    )
    const repaired = await cli(['repair-store', dir])
    expect(repaired.code, repaired.err).toBe(EXIT.ok)
    expect(repaired.out).toMatch(
      /^set aside 1 record into .*quarantine-.* \(the store no longer holds what it held\):\n {2}log-000000000001\.jsonl, line 4, byte \d+ \(checksum mismatch\): record 4, submit user message "m2": "m9"\nkept 3 records in the order written: the store now ends at record 3\n$/,
    )
    const again = await cli(['repair-store', dir])
    expect(again.out).toBe(`${dir}: the log has no damaged record; nothing moved\n`)
  })

  it('a store another server holds: exit 6, one line', async () => {
    const dir = await storeOfThree()
    const holder = await openDurableStore(fileStorage(dir))()
    try {
      const r = await cli(['serve', '--data', dir, '--port', '0'])
      expect(r.code).toBe(EXIT.locked)
      expect(oneLine(r.err)).toMatch(/^chatfold: Cannot open the store in .*: this process holds it already$/)
    } finally {
      await holder.close()
    }
  })

  it('an address in use: exit 7, one line, and the store released', async () => {
    const dir = await storeOfThree()
    const taken: Server = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const port = (taken.address() as { port: number }).port
      const r = await cli(['serve', '--data', dir, '--port', String(port)])
      expect(r.code).toBe(EXIT.listen)
      expect(oneLine(r.err)).toBe(`chatfold: cannot listen on 127.0.0.1:${port}: EADDRINUSE`)
      expect(await readdir(dir)).not.toContain('LOCK')
    } finally {
      taken.close()
    }
  })

  it('an unforeseen failure: exit 70 and one line; --debug adds the stack', async () => {
    const dir = await fresh()
    const file = join(dir, 'h.jsonl')
    await writeFile(file, toJSONL(sampleSession({ messages: 10, seed: 1, maxResult: 500 })))
    const boom = () => {
      throw new Error('the output broke')
    }
    const r = await cli(['render', file], boom)
    expect(r.code).toBe(EXIT.internal)
    expect(oneLine(r.err)).toBe('chatfold: the output broke (an unforeseen failure: --debug prints its stack)')
    const d = await cli(['render', file, '--debug'], boom)
    expect(d.code).toBe(EXIT.internal)
    expect(d.err).toMatch(/^chatfold: Error: the output broke\n\s+at /)
  })
})

describe('the command line at its edges', () => {
  it('bad serve and repair-store values are usage errors: exit 2', async () => {
    expect((await cli(['serve', '--port', 'abc'])).code).toBe(EXIT.usage)
    expect((await cli(['serve', '--port', '70000'])).code).toBe(EXIT.usage)
    expect((await cli(['serve', '--snapshot-every', '0'])).code).toBe(EXIT.usage)
    expect((await cli(['serve', '--max-body-bytes', '0'])).code).toBe(EXIT.usage)
    expect((await cli(['serve', '--max-body-bytes', '1.5'])).code).toBe(EXIT.usage)
    expect((await cli(['serve', '--token', 'short'])).code).toBe(EXIT.usage)
    expect((await cli(['repair-store'])).code).toBe(EXIT.usage)
  })

  it('an address no interface has: exit 7, one line naming the address and port, and why', async () => {
    const dir = await fresh()
    const r = await cli(['serve', '--data', dir, '--port', '0', '--host', '203.0.113.9'])
    expect(r.code).toBe(EXIT.listen)
    expect(oneLine(r.err)).toBe('chatfold: cannot listen on 203.0.113.9:0: EADDRNOTAVAIL (no network interface of this machine has that address)')
    expect(await readdir(dir)).not.toContain('LOCK')
  })

  it.skipIf(process.platform !== 'linux')('a full stdout (/dev/full): exit 3 and one line, no stack', () => {
    const full = openSync('/dev/full', 'w')
    try {
      const r = spawnSync(process.execPath, [bin, 'formats'], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 60_000 })
      expect(r.status).toBe(EXIT.io)
      expect(oneLine(r.stderr)).toBe('chatfold: cannot write the output: ENOSPC (no space left)')
    } finally {
      closeSync(full)
    }
  })

  it('--token on the command line warns that other users see it, and points to CHATFOLD_TOKEN', async () => {
    const dir = await fresh()
    const child = await startChild(
      process.execPath,
      [bin, 'serve', '--data', join(dir, 'data'), '--port', '0', '--token', 'a-token-seen-in-ps-0123456789'],
      /listening on /,
    )
    try {
      expect(child.output()).toContain('chatfold: --token is visible to other users of this machine (ps, /proc/<pid>/cmdline); set CHATFOLD_TOKEN instead')
    } finally {
      await stopChild(child.process, 'SIGTERM')
    }
    const help = await cli(['serve', '--help'])
    expect(help.out.replace(/\s+/g, ' ')).toContain('other users see it in ps: prefer CHATFOLD_TOKEN')
  })

  it('-o onto a symbolic link writes the file it points to and keeps the link; a link to nothing is refused', async () => {
    const dir = await fresh()
    const input = join(dir, 'h.jsonl')
    await writeFile(input, toJSONL(sampleSession({ messages: 10, seed: 3, maxResult: 500 })))
    const target = join(dir, 'target.md')
    await writeFile(target, 'old\n')
    const link = join(dir, 'link.md')
    await symlink('target.md', link)
    const r = await cli(['render', input, '-o', link])
    expect(r.code, r.err).toBe(EXIT.ok)
    expect((await lstat(link)).isSymbolicLink()).toBe(true)
    expect(await readFile(target, 'utf8')).not.toBe('old\n')
    expect(await readFile(link, 'utf8')).toBe(await readFile(target, 'utf8'))
    const dangling = join(dir, 'dangling.md')
    await symlink('nowhere.md', dangling)
    const d = await cli(['render', input, '-o', dangling])
    expect(d.code).toBe(EXIT.io)
    expect(oneLine(d.err)).toBe(`chatfold: cannot write ${dangling}: it is a symbolic link to nothing`)
    expect((await lstat(dangling)).isSymbolicLink()).toBe(true)
  })
})
