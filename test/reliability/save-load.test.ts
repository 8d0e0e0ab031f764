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
