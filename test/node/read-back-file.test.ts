import { afterAll, describe, expect, it } from 'vitest'
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { toJSONL } from '../../src/history/codec.ts'
import { pruneToolResults } from '../../src/history/prune.ts'
import { pointersOf } from '../../src/history/pointer.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import { indexJSONL } from '../../src/readback/jsonl-index.ts'
import type { ReadBackPage } from '../../src/readback/read-back.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import type { ToolCallPart, ToolResultPart } from '../../src/message/part-model.ts'
import { saveHistory } from '../../src/node/session-file.ts'
import {
  formatReadBackFileFailure,
  type HistoryFileIndex,
  indexHistoryFile,
  type ReadBackFileFailure,
  readBackFromFile,
} from '../../src/node/read-back-file.ts'
import { readBackHistory } from '../support/read-back-history.ts'

const dir = mkdtempSync(join(tmpdir(), 'chatfold-read-back-file-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const encoder = new TextEncoder()

/** The original text of a pointer's output, read from the history by hand. */
const originalOf = (ms: Messages, messageId: string, toolCallId: string, part: 'result' | 'arguments'): string => {
  const m = ms.find((x) => x.id === messageId) as Message
  const p = m.parts.find((x) => (part === 'result' ? x.type === 'tool_result' && x.toolCallId === toolCallId : x.type === 'tool_call' && x.id === toolCallId))
  return part === 'result' ? (p as ToolResultPart).content as string : (p as ToolCallPart).arguments
}

const must = <A>(r: E.Either<ReadBackFileFailure, A>): A => {
  if (E.isLeft(r)) throw new Error(formatReadBackFileFailure(r.left))
  return r.right
}

/** Every page of an output read back from the file, put together. */
const wholeOf = async (ref: string, maxBytes: number, index: HistoryFileIndex): Promise<string> => {
  let out = ''
  for (let offset: number | undefined = 0; offset !== undefined;) {
    const page: ReadBackPage = must(await readBackFromFile(ref, { maxBytes, offset })(index))
    expect(encoder.encode(page.text).length).toBe(page.bytes)
    out += page.text
    offset = page.next
  }
  return out
}

describe('readBackFromFile', () => {
  it('reads every pruned result and cut argument of a 20,000-message history back from its file byte for byte', async () => {
    const history = readBackHistory(20_000)
    const file = join(dir, 'long.jsonl')
    expect(E.isRight(await saveHistory(file)(history))).toBe(true)
    const index = must(await indexHistoryFile(file))
    expect(index.index.unreadable).toEqual([])
    const pointers = pruneToolResults({ protectTokens: 20_000, minimumSavings: 0 })(history).flatMap(pointersOf)
    expect(pointers.length).toBeGreaterThan(6_000)
    expect(pointers.some((p) => p.part === 'arguments')).toBe(true)
    for (const p of pointers) {
      const original = originalOf(history, p.messageId, p.toolCallId, p.part)
      const page = must(await readBackFromFile(toPointerRef(p))(index))
      expect(page.text).toBe(original)
      expect(page.totalBytes).toBe(encoder.encode(original).length)
      expect(page.next).toBeUndefined()
    }
    // a page at a time, the pages put together
    for (const p of pointers.slice(0, 50)) expect(await wholeOf(toPointerRef(p), 301, index)).toBe(originalOf(history, p.messageId, p.toolCallId, p.part))
  }, 120_000)

  it('extends an index over what was appended since, and reads an unfinished last line again whole', async () => {
    const history = readBackHistory(300)
    const pointers = pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(history).flatMap(pointersOf)
    const text = toJSONL(history)
    const file = join(dir, 'growing.jsonl')
    // the file as a writer leaves it mid-append: the first half, then part of a line
    const half = text.split('\n').slice(0, 150).join('\n') + '\n'
    const rest = text.slice(half.length)
    writeFileSync(file, half + rest.slice(0, 40))
    const first = must(await indexHistoryFile(file))
    expect(first.index.bytes).toBe(encoder.encode(half).length)
    const late = pointers.filter((p) => Number(p.messageId.slice(1)) >= 50)
    expect(late.length).toBeGreaterThan(10)
    expect(await readBackFromFile(toPointerRef(late[0]!))(first)).toMatchObject(E.left({ kind: 'not_found' }))
    appendFileSync(file, rest.slice(40))
    const extended = must(await indexHistoryFile(file, first))
    expect(extended.index).toEqual(indexJSONL(encoder.encode(text)))
    for (const p of pointers) expect(must(await readBackFromFile(p)(extended)).text).toBe(originalOf(history, p.messageId, p.toolCallId, p.part))
  })

  it('says so when the file was replaced or cut since it was indexed, and names a line that is not JSON', async () => {
    const history = readBackHistory(30)
    const [p] = pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(history).flatMap(pointersOf)
    const file = join(dir, 'replaced.jsonl')
    expect(E.isRight(await saveHistory(file)(history))).toBe(true)
    const index = must(await indexHistoryFile(file))
    expect(E.isRight(await saveHistory(file)(history.slice(0, 3)))).toBe(true)
    expect(await readBackFromFile(p!)(index)).toMatchObject(E.left({ kind: 'stale' }))
    writeFileSync(file, 'not json\n' + toJSONL(history))
    const withBadLine = must(await indexHistoryFile(file))
    expect(withBadLine.index.unreadable).toEqual([1])
    expect(must(await readBackFromFile(p!)(withBadLine)).text).toBe(originalOf(history, p!.messageId, p!.toolCallId, p!.part))
    rmSync(file)
    expect(await readBackFromFile(p!)(withBadLine)).toMatchObject(E.left({ kind: 'io' }))
  })
})
