/**
 * One owner per data directory, however tightly starts overlap: three processes take the `LOCK` of
 * one directory at the same moment (each told to go by one message), 200 rounds on a fresh
 * directory and 200 on a directory whose `LOCK` a dead process left; exactly one takes it each
 * round, still holds it when the round ends, and nothing of the race is left behind. Then two
 * real `chatfold serve` processes started together on one directory (fresh, and with a dead
 * server's LOCK): one serves, the other exits 6 naming the first.
 */
import { type ChildProcess, fork, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const here = dirname(fileURLToPath(import.meta.url))
const CONTENDERS = 3
const ROUNDS = 200

type Reply = { readonly type: string; readonly took?: boolean; readonly why?: string; readonly code?: string; readonly lost?: string }
let children: Array<{ readonly child: ChildProcess; readonly next: () => Promise<Reply> }> = []
let root = ''

/** A child and a queue of its messages. */
const contender = () => {
  const child = fork(join(here, 'support', 'lock-race-child.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const queue: Reply[] = []
  const waiting: Array<(r: Reply) => void> = []
  child.on('message', (m: Reply) => {
    const w = waiting.shift()
    if (w === undefined) queue.push(m)
    else w(m)
  })
  const next = () => {
    const m = queue.shift()
    return m === undefined ? new Promise<Reply>((resolve) => waiting.push(resolve)) : Promise.resolve(m)
  }
  return { child, next }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'chatfold-lock-race-'))
  children = Array.from({ length: CONTENDERS }, contender)
  for (const c of children) expect((await c.next()).type).toBe('ready')
}, 60_000)
afterAll(async () => {
  for (const c of children) c.child.send({ type: 'exit' })
  await rm(root, { recursive: true, force: true })
})

/** One round on `dir`: every contender told to go at once; how many took the lock, and what the others were told. */
const round = async (dir: string): Promise<{ took: number; refused: ReadonlyArray<Reply> }> => {
  for (const c of children) c.child.send({ type: 'go', dir })
  const replies = await Promise.all(children.map((c) => c.next()))
  for (const c of children) c.child.send({ type: 'end' })
  const ended = await Promise.all(children.map((c) => c.next()))
  // whoever took it still held it at the end of the round
  expect(ended.map((e) => e.lost).filter((l) => l !== undefined)).toEqual([])
  expect(await readdir(dir)).toEqual([]) // no LOCK, no temporary file, no claim left
  return { took: replies.filter((r) => r.took === true).length, refused: replies.filter((r) => r.took !== true) }
}

describe('the LOCK under starts at the same moment', { timeout: 120_000 }, () => {
  it(`is taken by exactly one of ${CONTENDERS} processes, ${ROUNDS} rounds on a fresh directory`, async () => {
    const counts: number[] = []
    const refused: Reply[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const dir = join(root, `fresh-${i}`)
      await mkdirp(dir)
      const r = await round(dir)
      counts.push(r.took)
      refused.push(...r.refused)
    }
    expect(counts.filter((n) => n !== 1)).toEqual([])
    // the others were told who holds it
    for (const r of refused) expect(r).toMatchObject({ code: 'locked', why: expect.stringMatching(/process \d+ holds it \(on .*, since \d{4}-/) })
  })

  it(`is taken over from a dead process by exactly one of ${CONTENDERS}, ${ROUNDS} rounds`, async () => {
    const dead = spawnSync('true').pid as number
    const counts: number[] = []
    for (let i = 0; i < ROUNDS; i++) {
      const dir = join(root, `stale-${i}`)
      await mkdirp(dir)
      // as a server that was killed left it; every other round as an older version wrote it (no token)
      await writeFile(join(dir, 'LOCK'), i % 2 === 0 ? `${dead} - 0123abcd ${hostname()} 2024-03-15T10:00:00.000Z\n` : String(dead))
      counts.push((await round(dir)).took)
    }
    expect(counts.filter((n) => n !== 1)).toEqual([])
  })
})

const mkdirp = (d: string) => import('node:fs/promises').then((fs) => fs.mkdir(d, { recursive: true }))

describe('two chatfold serve processes started together', { timeout: 60_000 }, () => {
  it.each(['a fresh directory', "a dead server's LOCK"])('on %s: one serves, the other exits 6 naming it', async (on) => {
    const dir = join(root, `served-${on.length}`)
    await mkdirp(dir)
    if (on !== 'a fresh directory') await writeFile(join(dir, 'LOCK'), `${spawnSync('true').pid} - 0123abcd ${hostname()} 2024-03-15T10:00:00.000Z\n`)
    const bin = join(here, '..', '..', 'bin', 'chatfold.mjs')
    const start = () => {
      const p = spawn(process.execPath, [bin, 'serve', '--data', dir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      p.stderr.on('data', (d: Buffer) => void (out += d.toString()))
      const listening = new Promise<'listening' | number>((resolve) => {
        p.stderr.on('data', () => (/listening on/.test(out) ? resolve('listening') : undefined))
        p.once('exit', (code) => resolve(code ?? -1))
      })
      return { p, listening, out: () => out }
    }
    const a = start()
    const b = start()
    try {
      const outcomes = await Promise.all([a.listening, b.listening])
      expect([...outcomes].sort()).toEqual([6, 'listening'])
      const loser = outcomes[0] === 6 ? a : b
      const winner = loser === a ? b : a
      expect(loser.out()).toMatch(new RegExp(`chatfold: Cannot open the store in .*: process ${winner.p.pid} holds it \\(on `))
    } finally {
      a.p.kill('SIGKILL')
      b.p.kill('SIGKILL')
    }
  })
})
