import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromGeminiCliChat, type SessionRead } from '../../src/sessions/mod.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { type Message } from '../../src/message/message.ts'

const JSON_FIXTURE = readFileSync(new URL('../fixtures/gemini-cli/session-2026-04-02T16-30-6f0c2d1e.json', import.meta.url), 'utf8')
const JSONL_FIXTURE = readFileSync(new URL('../fixtures/gemini-cli/session-2026-05-11T08-00-9a8b7c6d.jsonl', import.meta.url), 'utf8')

type Rec = Record<string, unknown>
const read = (t: string, o: Parameters<typeof fromGeminiCliChat>[0] = {}): SessionRead => {
  const r = fromGeminiCliChat(o)(t)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}
const viaJSONL = (ms: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const back = fromJSONL(toJSONL(ms))
  if (E.isLeft(back)) throw new Error(JSON.stringify(back.left))
  return back.right
}
const texts = (m: Message | undefined): string[] => (m?.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : []))

describe('fromGeminiCliChat on a JSON recording', () => {
  const source = JSON.parse(JSON_FIXTURE) as { sessionId: string; messages: Rec[] }
  const ms = viaJSONL(read(JSON_FIXTURE).messages)
  const parts = ms.flatMap((m) => m.parts)

  it('keeps every tool call with its args and its result, an error or cancelled one as an error (read from the file independently)', () => {
    const calls = source.messages.flatMap((m) => (m['toolCalls'] as Rec[] | undefined) ?? [])
    expect(calls.length).toBe(4)
    for (const c of calls) {
      expect(parts.find((p) => p.type === 'tool_call' && p.id === c['id'])).toMatchObject({ name: c['name'], arguments: JSON.stringify(c['args']) })
      const response = ((c['result'] as Rec[])[0]?.['functionResponse'] as Rec)['response'] as Rec
      expect(parts.find((p) => p.type === 'tool_result' && p.toolCallId === c['id'])).toMatchObject({
        content: response['output'] ?? response['error'],
        isError: c['status'] !== 'success',
      })
    }
  })

  it('keeps thoughts as reasoning, tokens as usage, model and provider on each reply', () => {
    for (const m of source.messages.filter((x) => x['type'] === 'gemini')) {
      const mine = ms.find((x) => x.id === m['id'])
      expect(mine).toMatchObject({ role: 'assistant', model: m['model'], provider: 'google', createdAt: m['timestamp'] })
      const tokens = m['tokens'] as Rec
      // Gemini's prompt count includes the cached tokens, which the usage contract keeps apart
      expect(mine?.metadata?.['usage']).toEqual({
        input: Number(tokens['input']) - Number(tokens['cached'] ?? 0),
        output: tokens['output'],
        cacheRead: tokens['cached'],
        reasoning: tokens['thoughts'],
      })
      for (const t of (m['thoughts'] as Rec[]) ?? [])
        expect(mine?.parts.some((p) => p.type === 'reasoning' && p.text.includes(t['subject'] as string) && p.text.includes(t['description'] as string))).toBe(
          true,
        )
      if (m['content'] !== '') expect(texts(mine)).toEqual([m['content']])
    }
  })

  it('reads user content as a string or parts, and keeps notices as display messages', () => {
    for (const m of source.messages.filter((x) => x['type'] === 'user')) {
      const c = m['content']
      expect(texts(ms.find((x) => x.id === m['id']))).toEqual(typeof c === 'string' ? [c] : (c as Rec[]).map((p) => p['text']))
    }
    const notices = ms.filter((m) => m.kind === 'display')
    expect(notices.map((m) => texts(m)[0])).toEqual(source.messages.filter((m) => m['type'] === 'info').map((m) => m['content']))
    expect(ms[0]).toMatchObject({ kind: 'metadata', metadata: { gemini: { sessionId: source.sessionId } } })
  })
})

describe('fromGeminiCliChat on a JSON lines recording', () => {
  const r = read(JSONL_FIXTURE)

  it('replays it: a record read again replaces the one before, $rewindTo drops that message and the later ones', () => {
    const ids = r.messages.filter((m) => m.kind !== 'metadata').map((m) => m.id)
    expect(ids).toEqual(['m-1', 'm-2', 'm-2:results', 'm-3', 'm-5'])
    expect(r.messages.find((m) => m.id === 'm-2:results')?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'grep-1', isError: false })
    expect(r.messages.find((m) => m.id === 'm-3')?.metadata?.['usage']).toEqual({ input: 5330 - 4096, output: 24, cacheRead: 4096 })
    expect(r.notes.join('\n')).toContain('1 messages dropped by $rewindTo')
    expect(r.archive.map((m) => texts(m)[0])).toEqual(['Fix both'])
    expect(r.messages[0]?.metadata?.['gemini']).toMatchObject({ summary: 'TODO comments in src' })
  })

  it('fails on a line that is no record of a recording, by line, or skips it', () => {
    const bad = `${JSONL_FIXTURE}{"hello":"world"}\n{"id":"m-9","type":"gemini","toolCalls":[{"id":"x"}]}\n`
    const failed = fromGeminiCliChat({})(bad)
    expect(E.isLeft(failed) && failed.left[0]?.path).toBe('line 10')
    const skipped = read(bad, { badLines: 'skip' })
    expect(skipped.skipped.map((s) => s.line)).toEqual([10, 11])
    expect(skipped.skipped[1]?.reason).toContain('toolCalls[0].name')
  })

  it('reads the history of a non-empty $set.messages, as the command line does', () => {
    const t = `${JSONL_FIXTURE}{"$set":{"messages":[{"id":"n-1","timestamp":"2026-05-11T09:00:00.000Z","type":"user","content":"compressed"}]}}\n`
    const s = read(t)
    expect(s.messages.filter((m) => m.kind !== 'metadata').map((m) => texts(m)[0])).toEqual(['compressed'])
    expect(s.notes.join('\n')).toContain('$set.messages')
    expect(s.archive.map((m) => m.id)).toEqual(['m-4', 'm-1', 'm-2', 'm-2:results', 'm-3', 'm-5'])
  })
})

describe('fromGeminiCliChat on replies a provider would not take', () => {
  it('keeps a reply with only thoughts, or nothing, as a display message, and says so', () => {
    const doc = {
      sessionId: 's',
      projectHash: 'p',
      startTime: '2026-01-01T00:00:00.000Z',
      lastUpdated: '2026-01-01T00:00:00.000Z',
      messages: [
        { id: '1', timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: 'hi' },
        {
          id: '2',
          timestamp: '2026-01-01T00:00:02.000Z',
          type: 'gemini',
          content: '',
          thoughts: [{ subject: 'Hmm', description: 'thinking', timestamp: '2026-01-01T00:00:02.000Z' }],
        },
        { id: '3', timestamp: '2026-01-01T00:00:03.000Z', type: 'gemini', content: '' },
      ],
    }
    const r = read(JSON.stringify(doc))
    expect(r.messages.filter((m) => m.role === 'assistant').map((m) => [m.id, m.kind, m.parts.length])).toEqual([
      ['2', 'display', 1],
      ['3', 'display', 0],
    ])
    expect(r.notes.join('\n')).toContain('2 replies with no text and no tool call')
  })
})

describe('images in Gemini CLI tool results', () => {
  const IMAGES = readFileSync(new URL('../fixtures/gemini-cli/session-2026-06-03T14-20-3e7f1a2b.jsonl', import.meta.url), 'utf8')
  const PNG = Uint8Array.from(
    atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
    (c) => c.charCodeAt(0),
  )
  const shot = [{ type: 'text', text: 'Binary content provided (1 item(s)).' }, { type: 'image', data: PNG, mediaType: 'image/png' }]
  const results = viaJSONL(read(IMAGES).messages).flatMap((m) => m.parts).flatMap((p) => (p.type === 'tool_result' ? [p] : []))
  it('carries an image inside the function response (functionResponse.parts) in the result', () => {
    expect(results[0]).toMatchObject({ toolCallId: 'read_file-1', content: shot })
  })
  it('carries an image beside the function response in the result, not only in metadata', () => {
    expect(results[1]).toMatchObject({ toolCallId: 'read_file-2', content: shot })
  })
})
