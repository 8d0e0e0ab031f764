/**
 * Reading a saved history on the engine's side (`readHistoryFile`, what `openFile` runs): files of
 * several megabytes read a piece at a time give exactly what `fromJSONL` and `fromJSON` give,
 * whatever falls on the pieces' edges (characters of four bytes, `\r\n`, a line longer than a
 * piece); bytes that are not UTF-8 are refused with their exact line; a torn last line (a crash
 * mid-append) is dropped as loadHistory drops it, or reported; progress never runs past its total.
 */
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { readHistoryFile } from '../../src/engine/_file.ts'
import { fromJSON, fromJSONL, toJSON, toJSONL } from '../../src/history/codec.ts'
import { type Messages, textMessage } from '../../src/message/message.ts'

/** Reads `file`, "counting" a message as one token, and records the progress. */
const read = async (file: Blob, tornTail?: 'drop' | 'fail') => {
  const seen: Array<readonly [number, number]> = []
  const r = await readHistoryFile(file, {
    signal: new AbortController().signal,
    ...(tornTail === undefined ? {} : { tornTail }),
    count: (messages) => Promise.resolve({ messages, tokens: messages.length }),
    progress: (done, total) => seen.push([done, total]),
  })
  return { ...r, seen }
}

const rejection = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p
  } catch (e) {
    return e as Error
  }
  throw new Error('expected a rejection')
}

/** About `mb` megabytes of messages whose text is mostly characters of two to four bytes in UTF-8. */
const bulky = (mb: number): Messages => {
  const out = []
  for (let i = 0; out.length * 3_000 < mb * 1_000_000; i++)
    out.push(textMessage(i % 2 === 0 ? 'user' : 'assistant', `${i} ${'日本語😀é─'.repeat(300)}`, { id: `m${i}` }))
  // and one line longer than a piece of 256 KiB
  out.push(textMessage('assistant', 'x'.repeat(400_000), { id: 'long' }))
  return out
}

describe('readHistoryFile', () => {
  it('reads a JSONL file of several megabytes as fromJSONL does, \\r\\n endings, a byte-order mark and a long line included', async () => {
    const ms = bulky(3)
    const text = `\uFEFF${toJSONL(ms).replaceAll('\n', '\r\n')}`
    const expected = fromJSONL(text)
    expect(E.isRight(expected) && expected.right).toEqual(ms)
    const r = await read(new Blob([text]))
    expect(r.messages).toEqual(ms)
    expect(r.tokens).toBe(ms.length)
    expect(r.seen.at(-1)).toEqual([ms.length, ms.length])
    expect(r.seen.every(([done, total]) => done <= total)).toBe(true)
  })

  it('reads a JSON array as fromJSON does', async () => {
    const ms = bulky(1)
    const text = `\uFEFF\n  ${toJSON(ms, 2)}`
    expect((await read(new Blob([text]))).messages).toEqual(ms)
    expect(E.isRight(fromJSON(toJSON(ms, 2)))).toBe(true)
  })

  it('refuses bytes that are not UTF-8 with their line, far into a large file too', async () => {
    const ms = bulky(2)
    const lines = toJSONL(ms).split('\n')
    for (const at of [1, 4, lines.length - 3]) {
      const before = new TextEncoder().encode(lines.slice(0, at).map((l) => `${l}\n`).join(''))
      const after = new TextEncoder().encode(lines.slice(at).join('\n'))
      const e = await rejection(read(new Blob([before, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), after])))
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toMatch(new RegExp(`line ${at + 1}: expected UTF-8 text`))
    }
  })

  it('names each bad line as fromJSONL does, and stops the counting already dealt', async () => {
    const ms = bulky(1)
    const lines = toJSONL(ms).split('\n')
    lines[200] = '{"id":"x","role":"bot","parts":[]}'
    let stopped = 0
    const e = await rejection(
      readHistoryFile(new Blob([lines.join('\n')]), {
        signal: new AbortController().signal,
        count: (messages, signal) =>
          new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              stopped++
              resolve({ messages, tokens: 0 })
            })
          }),
      }),
    )
    expect(e.message).toMatch(/line 201: role/)
    expect(stopped).toBeGreaterThan(0)
  })

  it('drops a torn last line as loadHistory does, or reports it with tornTail: fail; a whole last line without a newline is kept', async () => {
    const ms = bulky(2)
    const text = toJSONL(ms)
    const bytes = new TextEncoder().encode(text)
    // cut inside the last line's JSON, and inside a character of four bytes
    const inJson = bytes.subarray(0, bytes.length - 40)
    const inChar = bytes.subarray(0, text.lastIndexOf('😀') === -1 ? 0 : new TextEncoder().encode(text.slice(0, text.lastIndexOf('😀'))).length + 2)
    for (const torn of [inJson, inChar]) {
      const complete = fromJSONL(new TextDecoder().decode(torn.subarray(0, torn.lastIndexOf(0x0a) + 1)))
      expect(E.isRight(complete)).toBe(true)
      expect((await read(new Blob([torn]))).messages).toEqual(E.isRight(complete) ? complete.right : [])
      const e = await rejection(read(new Blob([torn]), 'fail'))
      expect(e.message).toMatch(new RegExp(`line ${E.isRight(complete) ? complete.right.length + 1 : 0}: expected a complete last line`))
    }
    expect((await read(new Blob([text.slice(0, -1)]), 'fail')).messages).toEqual(ms)
  })

  it('asks for the next slice of the Blob before it decodes this one, and reads every byte once, in order', async () => {
    const text = toJSONL(bulky(3))
    const asked: Array<readonly [number, number]> = []
    /** A Blob that records the slices asked of it. */
    class Recording extends Blob {
      override slice(start?: number, end?: number, type?: string): Blob {
        asked.push([start ?? 0, end ?? this.size])
        return super.slice(start, end, type)
      }
    }
    const file = new Recording([text])
    let askedAtFirstCount = -1
    const r = await readHistoryFile(file, {
      signal: new AbortController().signal,
      count: (messages) => {
        if (askedAtFirstCount < 0) askedAtFirstCount = asked.length
        return Promise.resolve({ messages, tokens: messages.length })
      },
    })
    expect(r.messages.length).toBe(text.split('\n').length - 1)
    // the first slice's lines are counted while the second slice is being read
    expect(askedAtFirstCount).toBe(2)
    expect(asked.length).toBeGreaterThan(2)
    expect(asked[0]?.[0]).toBe(0)
    for (let i = 1; i < asked.length; i++) expect(asked[i]?.[0]).toBe(asked[i - 1]?.[1])
    expect(asked.at(-1)?.[1]).toBeGreaterThanOrEqual(file.size)
  })
})
