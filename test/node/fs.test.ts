import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { type Messages, textMessage } from '../../src/message/message.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { forSave } from '../../src/history/views.ts'
import { emptyState } from '../../src/store/state.ts'
import { toSnapshot } from '../../src/store/snapshot.ts'
import { appendHistory, formatSessionFailure, loadHistory, loadStore, saveHistory, saveStore, writeAtomic } from '../../src/node/session-file.ts'
import { sampleSession } from '../../sample/session.ts'
import { applyAll, chat } from '../store/helpers.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-fs-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const history: Messages = sampleSession({ messages: 300, seed: 3 })
const leftovers = async () => (await readdir(dir)).filter((f) => f.endsWith('.tmp'))

describe('saveHistory / loadHistory', () => {
  it('round-trips what forSave keeps, atomically, leaving no temporary file', async () => {
    const file = join(dir, 'session.jsonl')
    expect(await saveHistory(file)(history)).toEqual(E.right(undefined))
    expect(await loadHistory(file)).toEqual(E.right(forSave(history)))
    expect(forSave(history).length).toBeLessThan(history.length) // the sample has ephemeral messages
    expect(await leftovers()).toEqual([])
  })

  it('replaces an existing file and keeps its permissions', async () => {
    const file = join(dir, 'private.jsonl')
    await writeFile(file, 'old\n')
    await chmod(file, 0o600)
    await saveHistory(file)([textMessage('user', 'new', { id: 'n' })])
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readFile(file, 'utf8')).toBe(toJSONL([textMessage('user', 'new', { id: 'n' })]))
  })

  it('reports every bad line by number', async () => {
    const file = join(dir, 'bad.jsonl')
    const good = toJSONL([textMessage('user', 'a', { id: '1' })])
    await writeFile(file, `${good}{"id":"2","role":"bot","parts":[]}\nnot json\n${good}`)
    const r = await loadHistory(file)
    expect(E.isLeft(r) && r.left.kind === 'decode' ? r.left.failure.map((i) => i.path) : []).toEqual(['line 2: role', 'line 3'])
    expect(E.isLeft(r) ? formatSessionFailure(r.left) : '').toContain('line 2: role: expected')
  })

  it('reports a missing file and a missing directory as I/O errors', async () => {
    const r = await loadHistory(join(dir, 'nope.jsonl'))
    expect(E.isLeft(r) && r.left.kind === 'io' && r.left.code).toBe('ENOENT')
    const w = await saveHistory(join(dir, 'no', 'such', 'dir.jsonl'))(history)
    expect(E.isLeft(w) && w.left.kind === 'io' && w.left.code).toBe('ENOENT')
    expect(await leftovers()).toEqual([])
  })

  it('refuses a file that is not UTF-8', async () => {
    const file = join(dir, 'latin1.jsonl')
    await writeFile(file, Buffer.from([0x7b, 0xe9, 0x7d, 0x0a]))
    const r = await loadHistory(file)
    expect(E.isLeft(r) && r.left.kind).toBe('decode')
  })

  it('writeAtomic writes bytes too', async () => {
    const file = join(dir, 'bytes.bin')
    expect(await writeAtomic(file, new Uint8Array([1, 2, 3]))).toEqual(E.right(undefined))
    expect([...(await readFile(file))]).toEqual([1, 2, 3])
  })
})

describe('torn last lines', () => {
  const a = textMessage('user', 'first', { id: 'a' })
  const b = textMessage('assistant', 'second', { id: 'b' })
  const lines = toJSONL([a, b])
  const torn = `${lines}{"id":"c","role":"us`

  it('drops a torn last line by default, and reports it on request', async () => {
    const file = join(dir, 'torn.jsonl')
    await writeFile(file, torn)
    expect(await loadHistory(file)).toEqual(E.right([a, b]))
    expect(await loadHistory(file, { tornTail: 'fail' })).toEqual(E.left({ kind: 'torn', file, line: 3 }))
  })

  it('a tail cut inside a multi-byte character is torn too', async () => {
    const file = join(dir, 'torn-utf8.jsonl')
    const bytes = Buffer.from(`${lines}{"id":"c","role":"user","parts":[{"type":"text","data":{"text":"日本`)
    await writeFile(file, bytes.subarray(0, bytes.length - 1))
    expect(await loadHistory(file)).toEqual(E.right([a, b]))
  })

  it('a complete last line without its newline is not torn', async () => {
    const file = join(dir, 'no-newline.jsonl')
    await writeFile(file, lines.slice(0, -1))
    expect(await loadHistory(file, { tornTail: 'fail' })).toEqual(E.right([a, b]))
  })

  it('a bad line that is JSON is an error, not a torn line', async () => {
    const file = join(dir, 'bad-tail.jsonl')
    await writeFile(file, `${lines}{"id":"c"}`)
    const r = await loadHistory(file)
    expect(E.isLeft(r) && r.left.kind).toBe('decode')
  })
})

describe('appendHistory', () => {
  const a = textMessage('user', 'first', { id: 'a' })
  const b = textMessage('assistant', 'second', { id: 'b' })
  const c = textMessage('user', 'third', { id: 'c' })

  it('creates the file, then appends only the new lines', async () => {
    const file = join(dir, 'append.jsonl')
    expect(await appendHistory(file)([a])).toEqual(E.right(undefined))
    expect(await appendHistory(file)([b, textMessage('tool', 'oops', { kind: 'ephemeral' })])).toEqual(E.right(undefined))
    expect(await appendHistory(file)([])).toEqual(E.right(undefined))
    expect(await readFile(file, 'utf8')).toBe(toJSONL([a, b]))
  })

  it('cuts a torn tail off before appending', async () => {
    const file = join(dir, 'append-torn.jsonl')
    await writeFile(file, `${toJSONL([a])}{"id":"b","ro`)
    await appendHistory(file)([c])
    expect(await loadHistory(file, { tornTail: 'fail' })).toEqual(E.right([a, c]))
  })

  it('cuts a torn tail longer than the read-back chunk', async () => {
    const file = join(dir, 'append-long-torn.jsonl')
    await writeFile(file, `${toJSONL([a])}{"id":"b","role":"user","parts":[{"type":"text","data":{"text":"${'x'.repeat(200_000)}`)
    await appendHistory(file)([c])
    expect(await loadHistory(file, { tornTail: 'fail' })).toEqual(E.right([a, c]))
  })

  it('a file that is one torn line becomes the new lines alone', async () => {
    const file = join(dir, 'append-all-torn.jsonl')
    await writeFile(file, '{"id":"b","ro')
    await appendHistory(file)([c])
    expect(await readFile(file, 'utf8')).toBe(toJSONL([c]))
  })

  it('adds the missing newline after a complete last line', async () => {
    const file = join(dir, 'append-newline.jsonl')
    await writeFile(file, toJSONL([a]).slice(0, -1))
    await appendHistory(file)([c])
    expect(await loadHistory(file, { tornTail: 'fail' })).toEqual(E.right([a, c]))
  })
})

describe('saveStore / loadStore', () => {
  const state = applyAll(emptyState({ maxHistorySize: 2 }), [
    chat('1', 'user', 'one', 1),
    chat('2', 'assistant', [{ type: 'text', text: 'two' }], 2, { metadata: { model: 'm' } }),
    chat('3', 'user', 'three', 3),
    chat('4', 'user', 'other', 4, { conversation_id: 'x' }),
  ])

  it('round-trips a whole store, pruned counts included', async () => {
    const file = join(dir, 'store.jsonl')
    expect(await saveStore(file)(state)).toEqual(E.right(undefined))
    const r = await loadStore(file)
    expect(E.isRight(r) ? toSnapshot(r.right) : r).toEqual(toSnapshot(state))
  })

  it('names the line of a bad message', async () => {
    const file = join(dir, 'store-bad.jsonl')
    await saveStore(file)(state)
    const text = await readFile(file, 'utf8')
    const lines = text.split('\n')
    lines[2] = (lines[2] ?? '').replace('"role":"user"', '"role":"tool"')
    await writeFile(file, lines.join('\n'))
    const r = await loadStore(file)
    expect(E.isLeft(r) && r.left.kind === 'decode' ? r.left.failure.map((i) => i.path) : []).toEqual(['line 3: role'])
  })

  it('refuses a history that is not a store', async () => {
    const file = join(dir, 'not-a-store.jsonl')
    await saveHistory(file)([textMessage('user', 'hi')])
    const r = await loadStore(file)
    expect(E.isLeft(r) && r.left.kind === 'decode' ? r.left.failure.map((i) => i.path) : []).toEqual(['line 1'])
  })
})
