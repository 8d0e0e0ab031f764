import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadHistory, loadStore, saveHistory, saveStore } from '../../src/fs/session.ts'
import { makeMessage } from '../../src/message.ts'
import { image } from '../../src/part.ts'
import { decodeMessages } from '../../src/message.ts'
import { toStoreMessages } from '../../src/store/persist.ts'
import { createChatStore } from '../../src/store/store.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-reliability-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('what is accepted saves and loads back', () => {
  it('a 16 MiB image saves with saveHistory and loads back equal', async () => {
    const data = new Uint8Array(16 * 1024 * 1024)
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 0xff
    const ms = [makeMessage({ role: 'user', parts: [image({ data, mediaType: 'image/png' })] })]
    const file = join(dir, 'image.jsonl')
    expect(E.isRight(await saveHistory(file)(ms))).toBe(true)
    const back = await loadHistory(file)
    expect(E.isRight(back)).toBe(true)
    if (E.isRight(back)) {
      const p = back.right[0]?.parts[0]
      expect(p?.type).toBe('image')
      expect(p !== undefined && p.type === 'image' && 'data' in p && Buffer.from(p.data).equals(data)).toBe(true)
      expect(back.right[0]?.id).toBe(ms[0]?.id)
    }
  }, 120_000)

  it('decodeMessages takes 130,000 messages (no push(...spread) overflow)', () => {
    const wire = Array.from({ length: 130_000 }, (_, i) => ({ id: `m${i}`, kind: 'normal', role: 'user', parts: [{ type: 'text', text: `m${i}` }] }))
    const r = decodeMessages(wire)
    expect(E.isRight(r) && r.right.length === 130_000).toBe(true)
  }, 120_000)

  it('a conversation of 200,000 messages (maxHistorySize: Infinity) saves and loads back', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z', maxHistorySize: Infinity })
    let accepted = 0
    for (let i = 0; i < 200_000; i++) if (E.isRight(store.submit({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }))) accepted++
    expect(accepted).toBe(200_000)
    const file = join(dir, 'store.jsonl')
    expect(E.isRight(await saveStore(file)(store.state()))).toBe(true)
    const back = await loadStore(file)
    expect(E.isRight(back)).toBe(true)
    if (E.isRight(back)) {
      const saved = toStoreMessages(store.state())
      const loaded = toStoreMessages(back.right)
      expect(loaded.length).toBe(200_001)
      expect(loaded).toEqual(saved)
    }
  }, 300_000)
})

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
