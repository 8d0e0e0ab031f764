/**
 * What a hostile but ordinary user sends, over loopback to a Node server, and what the data model
 * accepts, saved and loaded back: a request is accepted whole and servable, or refused with a 4xx
 * and no change; whatever was accepted can be saved and loaded again.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChatHandler } from '../../src/store/http.ts'
import { image, text } from '../../src/message/part-make.ts'
import { decodeMessages, IsoTimestampC, makeMessage, type Messages, textMessage } from '../../src/message/message.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { validateInput } from '../../src/store/input.ts'
import { createChatStore } from '../../src/store/store.ts'
import { applyInput, type ChatState, emptyState } from '../../src/store/state.ts'
import { toSnapshot } from '../../src/store/snapshot.ts'
import { loadHistory, loadStore, saveHistory, saveStore } from '../../src/node/session-file.ts'
import { serve } from '../../src/node/http.ts'
import { encodeBase64 } from '../../src/internal/base64.ts'
import { MAX_DEPTH } from '../../src/internal/json.ts'
import { fromAnthropic } from '../../src/adapters/anthropic/messages-from.ts'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-reliability-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** `depth` arrays nested in one another around a 1, as JSON text (JSON.stringify would overflow on it). */
const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`

/** Bytes of a given size with every value, so base64 uses the whole alphabet. */
const bytes = (n: number): Uint8Array => {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = (i * 7919) & 0xff
  return b
}

// Bodies of 200 KB nested 100,000 deep and of 130,000 blocks, each decoded whole, through a real
// server: a second or so on an idle machine, past vitest's 5 s beside other work
describe('the poison request (a content block with an unknown field nested 100,000 deep)', { timeout: 60_000 }, () => {
  it('is stored without the field, and every route and the saved file keep working', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const server = await serve(createChatHandler(store), { port: 0 })
    try {
      const body = JSON.stringify({ conversation_id: 'c1', message_id: 'm1', role: 'user', content: [{ type: 'text', text: 'hi', extra: 'X' }] }).replace(
        '"X"',
        nested(100_000),
      )
      expect(body.length).toBeGreaterThan(200_000)
      const submit = await fetch(`${server.url}/modalities/chat/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(submit.status).toBe(201)
      const stored = (await submit.json()) as { message: { content: unknown } }
      expect(stored.message.content).toEqual([{ type: 'text', text: 'hi' }])

      for (
        const [method, path, payload] of [
          ['GET', '/environment/modalities/chat', undefined],
          ['GET', '/events', undefined],
          ['POST', '/environment/modalities/chat/query', '{}'],
        ] as const
      ) {
        const r = await fetch(`${server.url}${path}`, {
          method,
          ...(payload === undefined ? {} : { body: payload, headers: { 'content-type': 'application/json' } }),
        })
        expect({ path, status: r.status }).toEqual({ path, status: 200 })
        expect(await r.text()).not.toContain('extra')
      }

      const file = join(dir, 'poisoned-store.jsonl')
      const saved = saveStore(file)(store.state())
      expect(saved).toBeInstanceOf(Promise)
      expect(await saved).toEqual(E.right(undefined))
      const back = await loadStore(file)
      expect(E.isRight(back) ? toSnapshot(back.right) : back).toEqual(toSnapshot(store.state()))
    } finally {
      await server.close()
    }
  })

  it('validateInput drops unknown block fields and keeps everything else', () => {
    const r = validateInput({
      modality_type: 'chat',
      timestamp: '2024-03-15T10:00:00Z',
      input_id: 'i',
      role: 'user',
      content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
    })
    expect(r).toEqual(
      E.right({ modality_type: 'chat', timestamp: '2024-03-15T10:00:00Z', input_id: 'i', role: 'user', content: [{ type: 'text', text: 'hi' }] }),
    )
  })

  it('a request of 130,000 null blocks (under the body limit) is a 400 naming the blocks, not a 500', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const server = await serve(createChatHandler(store), { port: 0 })
    try {
      const body = JSON.stringify({ role: 'user', content: new Array(130_000).fill(null) })
      expect(body.length).toBeLessThan(1 << 20)
      const r = await fetch(`${server.url}/modalities/chat/submit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      expect(r.status).toBe(400)
      const answer = (await r.json()) as { error: { issues: Array<{ path: string }>; issues_total: number } }
      expect(answer.error.issues[0]?.path).toBe('content[0]')
      expect(answer.error.issues_total).toBe(130_000)
      expect(store.state().updateCount).toBe(0)
    } finally {
      await server.close()
    }
  })
})

describe('everything the data model accepts saves and loads back equal', () => {
  it('a session holding a 16 MiB image, through saveHistory/loadHistory, decodeMessages and fromJSONL', async () => {
    const data = bytes(16 * 1024 * 1024)
    const history: Messages = [
      textMessage('user', 'look'),
      makeMessage({ role: 'user', parts: [text('the picture'), image({ data, mediaType: 'image/png' })] }),
    ]
    const file = join(dir, 'big-image.jsonl')
    expect(await saveHistory(file)(history)).toEqual(E.right(undefined))
    // compared through their JSONL (a deep comparison of 16 M bytes one by one is the test's own bottleneck)
    const jsonl = toJSONL(history)
    const same = (r: E.Either<unknown, Messages>): boolean => E.isRight(r) && r.right.length === 2 && toJSONL(r.right) === jsonl
    expect(same(await loadHistory(file))).toBe(true)
    expect(same(fromJSONL(jsonl))).toBe(true)
    expect(same(decodeMessages(jsonl.trimEnd().split('\n').map((l) => JSON.parse(l) as unknown)))).toBe(true)
  }, 60_000)

  it('metadata nested to the documented depth limit saves and loads back equal; one level more is refused by path', async () => {
    const nest = (levels: number): Record<string, unknown> => {
      let v: Record<string, unknown> = { leaf: true }
      for (let i = 1; i < levels; i++) v = { d: v }
      return v
    }
    const deepest = makeMessage({ role: 'user', parts: [text('deep')], metadata: nest(MAX_DEPTH) })
    const file = join(dir, 'deep-metadata.jsonl')
    expect(await saveHistory(file)([deepest])).toEqual(E.right(undefined))
    expect(await loadHistory(file)).toEqual(E.right([deepest]))
    const tooDeep = decodeMessages([{ ...JSON.parse(toJSONL([deepest])) as object, metadata: nest(MAX_DEPTH + 1) }])
    expect(E.isLeft(tooDeep) ? tooDeep.left[0]?.path : tooDeep).toMatch(/^\[0\]\.metadata/)
  })

  it("a provider request with a 16 MiB image decodes through the adapters' from…", () => {
    const data = encodeBase64(bytes(16 * 1024 * 1024))
    const r = fromAnthropic({
      messages: [{
        role: 'user',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }, { type: 'text', text: 'what is this?' }],
      }],
    })
    expect(E.isRight(r) ? r.right[0]?.parts.map((p) => p.type) : r).toEqual(['image', 'text'])
  }, 60_000)

  it('a chat input with an image block of 16 MiB validates', () => {
    const data = encodeBase64(bytes(16 * 1024 * 1024))
    const r = validateInput({
      modality_type: 'chat',
      timestamp: '2024-03-15T10:00:00Z',
      input_id: 'i',
      role: 'user',
      content: [{ type: 'image', source: 'base64', data, media_type: 'image/png' }],
    })
    expect(E.isRight(r)).toBe(true)
  }, 60_000)

  it('a conversation of 200,000 messages (maxHistorySize: Infinity) saves and loads back', async () => {
    let state: ChatState = emptyState({ maxHistorySize: Infinity })
    for (let i = 0; i < 200_000; i++) {
      const r = applyInput({
        modality_type: 'chat',
        timestamp: '2024-03-15T10:00:00Z',
        input_id: `i${i}`,
        role: i % 2 === 0 ? 'user' : 'assistant',
        content: `message ${i}`,
      })(state)
      if (E.isLeft(r)) throw new Error(`input ${i} refused`)
      state = r.right
    }
    const file = join(dir, 'long-store.jsonl')
    expect(await saveStore(file)(state)).toEqual(E.right(undefined))
    const back = await loadStore(file)
    expect(E.isRight(back) ? toSnapshot(back.right) : back).toEqual(toSnapshot(state))
  }, 120_000)
})

describe('smaller edges of the input', () => {
  /** Each timestamp with whether it is one. */
  const timestamps = (cases: ReadonlyArray<readonly [string, boolean]>): void => {
    for (const [s, ok] of cases) expect(IsoTimestampC.is(s), s).toBe(ok)
  }

  it('a date that does not exist is not a timestamp (2024-02-30), a leap day is', () => {
    timestamps([
      ['2024-02-30T10:00:00Z', false],
      ['2023-02-29T10:00:00Z', false],
      ['2024-04-31T00:00:00Z', false],
      ['2024-02-29T10:00:00Z', true],
      ['2024-12-31T23:59:59.999Z', true],
    ])
  })

  it('leap years follow the Gregorian rule, year 0000 included (Date.UTC reads 0–99 as 1900–1999)', () => {
    timestamps([
      ['1900-02-29T10:00:00Z', false],
      ['0100-02-29T10:00:00Z', false],
      ['2000-02-29T10:00:00Z', true],
      ['0004-02-29T10:00:00Z', true],
      ['0000-02-29T10:00:00Z', true],
      ['2024-06-31T10:00:00Z', false],
      ['2024-07-31T10:00:00Z', true],
      ['2024-13-01T10:00:00Z', false],
      ['2024-01-00T10:00:00Z', false],
    ])
  })

  it('fromJSONL accepts a byte-order mark before the first line, as loadHistory does', () => {
    const jsonl = toJSONL([textMessage('user', 'hi')])
    expect(fromJSONL(`\uFEFF${jsonl}`)).toEqual(fromJSONL(jsonl))
  })

  it('a body in another charset than UTF-8 is a 415, and changes nothing', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const r = await createChatHandler(store)(
      new Request('http://localhost/modalities/chat/submit', {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-16' },
        body: '{"role":"user","content":"hi"}',
      }),
    )
    expect(r.status).toBe(415)
    expect(store.state().updateCount).toBe(0)
    const ok = await createChatHandler(store)(
      new Request('http://localhost/modalities/chat/submit', {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: '{"role":"user","content":"hi"}',
      }),
    )
    expect(ok.status).toBe(201)
  })

  it('an error response lists at most 100 issues and says how many there were', async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const body = JSON.stringify({ role: 'user', content: new Array(100_000).fill(1) })
    const r = await createChatHandler(store)(
      new Request('http://localhost/modalities/chat/submit', { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
    )
    expect(r.status).toBe(400)
    const text = await r.text()
    expect(text.length).toBeLessThan(body.length)
    const answer = JSON.parse(text) as { error: { issues: unknown[]; issues_total: number } }
    expect(answer.error.issues).toHaveLength(100)
    expect(answer.error.issues_total).toBe(100_000)
  }, 60_000) // 100,000 blocks decoded and each refused: about a second idle, past 5 s beside other work
})
