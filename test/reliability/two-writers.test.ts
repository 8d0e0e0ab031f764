/**
 * A log two processes wrote at once (as two servers that both took the LOCK did): records with the
 * same numbers, interleaved in the order the writes reached the file. The log is made of real
 * writers' output: two stores opened on copies of one directory, each acknowledging its own
 * records (`flush` resolved: what a server answers 201 for), their lines interleaved in the order
 * they were acknowledged. `serve` refuses it, naming `repair-store`; `repair-store` keeps every
 * record either writer acknowledged, in the order written, renumbering the later of each clashing
 * pair, and names what it set aside (a second `create`, damaged lines); it prints a summary, not a
 * line per record. A zero-filled tail (a write lost with the power) is cut at the start, named.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { encodeLine } from '../../src/node/_log-segments.ts'
import { repairFileStore } from '../../src/node/repair-store.ts'
import { createChatHandler } from '../../src/store/http.ts'
import { type LogEntry, openDurableStore } from '../../src/store/durable.ts'

const START = '2024-03-15T10:00:00Z'
const LOG = 'log-000000000001.jsonl'
const dirs: string[] = []
const fresh = async () => {
  const d = await mkdtemp(join(tmpdir(), 'chatfold-two-writers-'))
  dirs.push(d)
  return d
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

const cli = async (argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

const contents = async (dir: string): Promise<string[]> => {
  const store = await openDurableStore(fileStorage(dir))()
  try {
    const r = await createChatHandler(store)(new Request('http://127.0.0.1/environment/modalities/chat'))
    return ((await r.json()) as { messages: Array<{ content: string }> }).messages.map((m) => m.content)
  } finally {
    await store.close()
  }
}

/**
 * Two writers on copies of `base` (a directory holding a store, or empty), each acknowledging
 * `n` records in turn (a1, b1, a2, b2, …); the log lines each appended, in that order.
 */
const twoWriters = async (base: string, n: number): Promise<{ prefix: string; lines: string[]; acknowledged: string[] }> => {
  const a = await fresh()
  const b = await fresh()
  await cp(base, a, { recursive: true })
  await cp(base, b, { recursive: true })
  const prefix = await readFile(join(base, LOG), 'utf8').catch(() => '')
  const sa = await openDurableStore(fileStorage(a))({ startTime: START })
  const sb = await openDurableStore(fileStorage(b))({ startTime: START })
  const acknowledged: string[] = []
  const order: Array<'a' | 'b'> = []
  // a fresh store writes its create record with its first step: both writers do
  for (let i = 1; i <= n; i++) {
    for (const [w, s] of [['a', sa], ['b', sb]] as const) {
      s.submit({ role: 'user', content: `${w}${i}`, message_id: `${w}${i}` })
      await s.flush() // acknowledged
      acknowledged.push(`${w}${i}`)
      order.push(w)
    }
  }
  await sa.close()
  await sb.close()
  const linesOf = async (d: string) => (await readFile(join(d, LOG), 'utf8')).slice(prefix.length).split('\n').filter((l) => l !== '')
  const la = await linesOf(a)
  const lb = await linesOf(b)
  // a create record of a fresh store goes out with the first submit, before it
  const lines: string[] = []
  if (prefix === '') lines.push(la.shift() as string, lb.shift() as string)
  for (const w of order) lines.push((w === 'a' ? la : lb).shift() as string)
  return { prefix, lines, acknowledged }
}

describe('a log two writers interleaved', () => {
  it('serve refuses it naming repair-store; repair-store keeps every acknowledged record, renumbered in the order written', async () => {
    const base = await fresh()
    const s = await openDurableStore(fileStorage(base))({ startTime: START })
    s.submit({ role: 'user', content: 'before', message_id: 'before' })
    await s.close()
    const { prefix, lines, acknowledged } = await twoWriters(base, 20)
    const dir = await fresh()
    await writeFile(join(dir, LOG), prefix + lines.map((l) => `${l}\n`).join(''))

    const served = await cli(['serve', '--data', dir, '--port', '0'])
    expect(served.code).toBe(EXIT.damaged)
    expect(served.err).toMatch(
      /record 3 \(.*line 4, byte \d+\) is out of place: it follows record 3 \(a number used twice: two processes wrote this log\); `chatfold repair-store .*` moves the damaged records aside/,
    )

    const repaired = await cli(['repair-store', dir])
    expect(repaired.code, repaired.err).toBe(EXIT.ok)
    // the create and 'before', then the 40 records: a1 keeps its number 3, every later one is renumbered
    expect(repaired.out).toBe(
      'kept 42 records in the order written, 39 of them renumbered (their numbers used twice or out of place): the store now ends at record 42\n',
    )
    expect(await contents(dir)).toEqual(['before', ...acknowledged])
    expect((await readdir(dir)).filter((n) => n.startsWith('quarantine-'))).toEqual([]) // nothing set aside
  })

  it('on a fresh directory: the second create is set aside, named, and every acknowledged record kept', async () => {
    const { lines, acknowledged } = await twoWriters(await fresh(), 5)
    const dir = await fresh()
    await writeFile(join(dir, LOG), lines.map((l) => `${l}\n`).join(''))
    await expect(openDurableStore(fileStorage(dir))()).rejects.toMatchObject({
      code: 'corrupt',
      message: expect.stringMatching(/record 1 .* is out of place: it follows record 1/),
    })
    const r = await repairFileStore(dir)
    expect(r.moved).toEqual([{
      file: LOG,
      line: 2,
      byte: expect.any(Number),
      problem: 'does not apply after the records kept before it: a second create command',
      what: 'record 1, create message',
    }])
    expect(r).toMatchObject({ kept: 11, lastRecord: 11 })
    expect(await contents(dir)).toEqual(acknowledged)
    const q = (await readFile(r.quarantine as string, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { text: string })
    expect(q.map((x) => x.text)).toEqual([lines[1]]) // kept as it was
    // a second repair finds nothing to do
    expect(await repairFileStore(dir)).toMatchObject({ quarantine: undefined, moved: [], renumbered: 0, lastRecord: 11 })
  })

  it('a record that does not replay (a message id taken twice): serve names repair-store, which sets it aside', async () => {
    const dir = await fresh()
    const s = await openDurableStore(fileStorage(dir))({ startTime: START })
    s.submit({ role: 'user', content: 'first', message_id: 'm1' })
    await s.close()
    const log = await readFile(join(dir, LOG), 'utf8')
    // record 2 again as record 3: a whole record, with its checksum, that does not apply
    const second = JSON.parse((log.split('\n')[1] as string).split('\t')[0] as string) as LogEntry
    await writeFile(join(dir, LOG), log + encodeLine({ ...second, seq: 3 }))
    const served = await cli(['serve', '--data', dir, '--port', '0'])
    expect(served.code).toBe(EXIT.damaged)
    expect(served.err).toMatch(/Cannot replay the log: record 3 \(submit\) fails: .*; `chatfold repair-store .*` moves the damaged records aside/)
    const r = await repairFileStore(dir)
    expect(r.moved.map((m) => [m.line, m.problem.startsWith('does not apply after the records kept before it: ')])).toEqual([[3, true]])
    expect(await contents(dir)).toEqual(['first'])
  })

  it('prints a summary with a few examples, not a line per record set aside', async () => {
    const dir = await fresh()
    const s = await openDurableStore(fileStorage(dir))({ startTime: START })
    s.submit({ role: 'user', content: 'kept', message_id: 'kept' })
    await s.close()
    // another program's 20,000 lines in the log
    await writeFile(join(dir, LOG), (await readFile(join(dir, LOG), 'utf8')) + Array.from({ length: 20_000 }, (_, i) => `noise ${i}\n`).join(''))
    const r = await cli(['repair-store', dir])
    expect(r.code, r.err).toBe(EXIT.ok)
    const out = r.out.trimEnd().split('\n')
    expect(out).toHaveLength(8)
    expect(out[0]).toMatch(/^set aside 20000 records into .*quarantine-.*\.jsonl \(the store no longer holds what they held\):$/)
    expect(out[1]).toMatch(/^ {2}log-000000000001\.jsonl, line 3, byte \d+ \(no checksum\): 7 characters that are not JSON$/)
    expect(out[6]).toBe('  … and 19995 more, each in the quarantine file')
    expect(out[7]).toBe('kept 2 records in the order written: the store now ends at record 2')
    expect(await contents(dir)).toEqual(['kept'])
  })
})

describe('a zero-filled tail', () => {
  it('is cut at the start and named, as a torn write, even with line ends among the zeros', async () => {
    const dir = await fresh()
    const s = await openDurableStore(fileStorage(dir))({ startTime: START })
    s.submit({ role: 'user', content: 'kept', message_id: 'kept' })
    await s.close()
    const whole = await readFile(join(dir, LOG))
    await writeFile(join(dir, LOG), Buffer.concat([whole, Buffer.alloc(300), Buffer.from('\n'), Buffer.alloc(100)]))
    const store = await openDurableStore(fileStorage(dir))()
    try {
      expect(store.recovery.repaired).toEqual([
        expect.stringMatching(
          /^cut a torn last record \(.*line 3, 401 bytes: zero bytes to the end of the file \(a write lost with the power\)\); it was never acknowledged$/,
        ),
      ])
      expect(store.recovery.messages).toBe(1)
    } finally {
      await store.close()
    }
    expect((await readFile(join(dir, LOG))).equals(whole)).toBe(true)
  })

  it('followed by a whole record is damage: the start stops, and repair-store keeps the record after it', async () => {
    const dir = await fresh()
    const s = await openDurableStore(fileStorage(dir))({ startTime: START })
    for (const m of ['m1', 'm2']) {
      s.submit({ role: 'user', content: m, message_id: m })
      await s.flush()
    }
    await s.close()
    const lines = (await readFile(join(dir, LOG), 'utf8')).split('\n')
    await writeFile(join(dir, LOG), `${lines[0]}\n${lines[1]}\n${'\0'.repeat(50)}\n${lines[2]}\n`)
    await expect(openDurableStore(fileStorage(dir))()).rejects.toMatchObject({ code: 'corrupt' })
    const r = await repairFileStore(dir)
    expect(r.moved.map((m) => [m.line, m.problem])).toEqual([[3, 'no checksum']])
    expect(await contents(dir)).toEqual(['m1', 'm2'])
  })
})
