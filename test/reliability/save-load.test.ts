import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadHistory, loadStore, saveHistory, saveStore } from '../../src/node/session-file.ts'
import { createChatStore } from '../../src/store/store.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-reliability-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

// what is accepted saves and loads back (16 MiB images, 200,000 messages): test/node/reliability.test.ts

describe('temporary files of a killed save', () => {
  it('are removed by the next save and the next load; a live save elsewhere keeps its file', async () => {
    const { writeFile, readdir } = await import('node:fs/promises')
    const file = join(dir, 'killed.jsonl')
    const dead = `.killed.jsonl.999999999.0123456789ab.tmp` // no such process
    const legacy = `.killed.jsonl.abcdef012345.tmp`
    const live = `.killed.jsonl.${process.ppid}.0123456789ab.tmp` // the parent process runs
    for (const n of [dead, legacy, live]) await writeFile(join(dir, n), 'partial')
    expect(E.isRight(await saveHistory(file)([]))).toBe(true)
    let names = await readdir(dir)
    expect(names.includes(dead) || names.includes(legacy)).toBe(false)
    expect(names.includes(live)).toBe(true)
    await writeFile(join(dir, dead), 'partial')
    expect(E.isRight(await loadHistory(file))).toBe(true)
    names = await readdir(dir)
    expect(names.includes(dead)).toBe(false)
  })
})

describe('errors name the line of the file', () => {
  it('a blank line does not shift the line a store-file error names', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    store.submit({ role: 'user', content: 'one' })
    store.submit({ role: 'assistant', content: 'two' })
    const file = join(dir, 'blank-line-store.jsonl')
    expect(await saveStore(file)(store.state())).toEqual(E.right(undefined))
    const lines = (await readFile(file, 'utf8')).split('\n')
    // a blank line after the header, then the second message (now line 4) made bad
    lines.splice(1, 0, '')
    lines[3] = (lines[3] ?? '').replace('"role":"assistant"', '"role":"tool"')
    await writeFile(file, lines.join('\n'))
    const r = await loadStore(file)
    expect(E.isLeft(r) && r.left.kind === 'decode' ? r.left.failure.map((i) => i.path) : r).toEqual(['line 4: role'])
  })

  it('invalid UTF-8 is reported with its line', async () => {
    const file = join(dir, 'bad-utf8.jsonl')
    const good = new TextEncoder().encode('{"a":1}\n{"b":2}\n')
    await writeFile(file, new Uint8Array([...good, 0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]))
    const r = await loadHistory(file)
    expect(E.isLeft(r) && r.left.kind === 'decode' ? r.left.failure.map((i) => i.path) : r).toEqual(['line 3'])
  })
})
