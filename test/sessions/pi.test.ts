import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/message/message.ts'
import { fromPiSession, isPiSessionLine } from '../../src/sessions/pi.ts'

const FILE = new URL('../fixtures/pi/2026-02-20T20-17-00-000Z_1a6f6bc4-2e7d-4c1a-9b8e-5f0d3c2a1b90.jsonl', import.meta.url).pathname
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>
const text = readFileSync(FILE, 'utf8')
const lines = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec)

/** Expects one pi message (read as plain JSON) among the messages read, with nothing but the file's own fields. */
const expectKept = (m: Rec, id: string, all: ReadonlyArray<Message>): void => {
  const parts = all.flatMap((x) => x.parts)
  const blocks: Rec[] = typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : (m['content'] ?? [])
  if (m['role'] === 'toolResult') {
    const images = blocks.filter((b) => b['type'] === 'image')
    expect(parts).toContainEqual({
      type: 'tool_result',
      toolCallId: m['toolCallId'],
      name: m['toolName'],
      content: images.length === 0
        ? blocks.map((b) => b['text']).join('\n')
        : blocks.map((b) =>
          b['type'] === 'image'
            ? { type: 'image', data: new Uint8Array(Buffer.from(b['data'], 'base64')), mediaType: b['mimeType'] }
            : { type: 'text', text: b['text'] }
        ),
      isError: m['isError'],
    })
    return
  }
  if (m['role'] === 'bashExecution') {
    expect(parts.some((p) => p.type === 'text' && p.text.includes(m['command']) && p.text.includes(m['output']))).toBe(true)
    return
  }
  for (const b of blocks) {
    if (b['type'] === 'text' && b['text'].trim() !== '') expect(parts).toContainEqual({ type: 'text', text: b['text'] })
    else if (b['type'] === 'thinking') expect(parts).toContainEqual({ type: 'reasoning', text: b['thinking'], signature: b['thinkingSignature'] })
    else if (b['type'] === 'toolCall')
      expect(parts).toContainEqual({ type: 'tool_call', id: b['id'], name: b['name'], arguments: JSON.stringify(b['arguments']), status: 'complete' })
  }
  if (m['role'] === 'assistant') {
    const got = all.find((x) => x.id === id)
    expect(got?.metadata?.['usage']).toEqual({
      input: m['usage']['input'],
      output: m['usage']['output'],
      cacheRead: m['usage']['cacheRead'],
      cacheWrite: m['usage']['cacheWrite'],
    })
    if (m['errorMessage'] !== undefined) expect(got?.error).toBe(m['errorMessage'])
  }
}

describe('a pi session', () => {
  const r = fromPiSession()(text)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const s = r.right
  const all = [...s.archive, ...s.messages]
  const parts = all.flatMap((m) => m.parts)

  it('keeps every turn, thinking block, tool call and result on the path to the leaf, the archive included', () => {
    // the path from the last entry to the root, with nothing but the parent links
    const byId = new Map(lines.filter((l) => l['type'] !== 'session').map((l) => [l['id'] as string, l]))
    const path: Rec[] = []
    for (let e: Rec | undefined = lines[lines.length - 1]; e !== undefined; e = e['parentId'] === null ? undefined : byId.get(e['parentId'])) path.unshift(e)
    for (const e of path) if (e['type'] === 'message') expectKept(e['message'], e['id'], all)
    for (const e of path.filter((x) => x['type'] === 'branch_summary')) expect(parts).toContainEqual({ type: 'text', text: e['summary'] })
    // what is off the path is counted
    expect(s.notes).toContain(`${lines.length - 1 - path.length} entries on other branches of the session tree left out`)
  })

  it('opens the history at the compaction summary, followed by the messages from firstKeptEntryId on', () => {
    const compaction = lines.find((l) => l['type'] === 'compaction') as Rec
    const head = s.messages.filter((m) => m.kind !== 'metadata')
    expect(head[0]?.parts[0]).toEqual({ type: 'text', text: compaction['summary'] })
    expect(head[1]?.id).toBe(compaction['firstKeptEntryId'])
    expect(s.archive.map((m) => m.id)).not.toContain(compaction['firstKeptEntryId'])
  })

  it('names a line it cannot read, or skips it with badLines: skip', () => {
    const bad = `${text}{"type":"message"}\n`
    const failed = fromPiSession()(bad)
    expect(E.isLeft(failed) && failed.left[0]?.path).toBe(`line ${lines.length + 1}.id`)
    const skipped = fromPiSession({ badLines: 'skip' })(bad)
    expect(E.isRight(skipped) && skipped.right.skipped).toEqual([{ line: lines.length + 1, reason: 'id: expected string' }])
  })
})

describe('a version 1 pi session (a real file, trimmed)', () => {
  const V1 = new URL('../fixtures/pi/2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl', import.meta.url).pathname
  const v1 = readFileSync(V1, 'utf8')
  const records = v1.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec)
  const r = fromPiSession()(v1)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const s = r.right
  const all = [...s.archive, ...s.messages]

  it('is detected by its header, which has no version', () => {
    expect(records[0]?.['version']).toBeUndefined()
    expect(isPiSessionLine(records[0])).toBe(true)
  })

  it('keeps every message of the file in file order, its entries having no ids', () => {
    records.forEach((e, i) => {
      if (i > 0) expect(e['id']).toBeUndefined()
      if (e['type'] === 'message') expectKept(e['message'], `line-${i + 1}`, all)
    })
    expect(s.notes.join('\n')).toContain('version 1')
  })

  it('opens the history at the compaction summary, then the entry firstKeptEntryIndex names', () => {
    const compactions = records.flatMap((e, i) => (e['type'] === 'compaction' ? [{ e, i }] : []))
    const last = compactions[compactions.length - 1] as { e: Rec; i: number }
    const head = s.messages.filter((m) => m.kind !== 'metadata')
    expect(head[0]?.parts[0]).toEqual({ type: 'text', text: last.e['summary'] })
    // the index counts the file's lines from the header (index 0), so entry k is line k + 1
    expect(head[1]?.id).toBe(`line-${last.e['firstKeptEntryIndex'] + 1}`)
    expect(s.archive.length).toBeGreaterThan(0)
  })
})

describe('an image a tool returned', () => {
  it('is an image block of the result, where it was left out with a note', () => {
    const r = fromPiSession()(
      [
        '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/app"}',
        '{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-05T09:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"shot.png"}}],"timestamp":1}}',
        '{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-05T09:00:02.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"Read image file [image/png]"},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}],"isError":false,"timestamp":2}}',
      ].join('\n'),
    )
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const result = r.right.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool_result')
    expect(result?.type === 'tool_result' && result.content).toEqual([
      { type: 'text', text: 'Read image file [image/png]' },
      { type: 'image', data: new Uint8Array(Buffer.from('iVBORw0KGgo=', 'base64')), mediaType: 'image/png' },
    ])
    expect(r.right.notes.join('\n')).not.toContain('image')
  })
})

describe('what pi leaves out of a request, as pi does', () => {
  const line = (o: Rec): string => JSON.stringify(o)
  const assistant = (content: Rec[], stopReason: string, extra: Rec = {}) =>
    line({
      type: 'message',
      timestamp: '2025-12-09T10:00:01.000Z',
      message: { role: 'assistant', content, api: 'anthropic-messages', provider: 'anthropic', model: 'claude-opus-4-5', stopReason, timestamp: 1, ...extra },
    })
  const user = (text: string) => line({ type: 'message', timestamp: '2025-12-09T10:00:02.000Z', message: { role: 'user', content: [{ type: 'text', text }] } })
  const session = line({ type: 'session', id: 's1', timestamp: '2025-12-09T10:00:00.000Z', cwd: '/app', provider: 'anthropic', modelId: 'claude-opus-4-5' })
  const read = (...ls: string[]) => {
    const r = fromPiSession()([session, ...ls].join('\n'))
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    return r.right
  }

  it('a reply that ended in an error (its calls never run) is kept as a display message, not sent', () => {
    // the shape of a real version 1 file: a reply cut off ("terminated") after it had written its calls
    const s = read(
      user('Refactor it'),
      assistant([{ type: 'text', text: 'On it.' }, { type: 'toolCall', id: 'toolu_a', name: 'read', arguments: { path: 'a.ts' } }], 'error', {
        errorMessage: 'terminated',
      }),
      user('continue'),
    )
    const failed = s.messages.find((m) => m.id === 'line-3')
    expect(failed).toMatchObject({ kind: 'display', error: 'terminated' })
    expect(s.messages.some((m) => m.parts.some((p) => p.type === 'tool_result'))).toBe(false)
    expect(s.notes.join('\n')).toContain('1 reply that ended in an error or was aborted (stopReason) kept as display messages')
  })

  it('a call with no result before the next turn is answered "No result provided", an error', () => {
    const s = read(
      user('Read both'),
      assistant([{ type: 'toolCall', id: 'toolu_a', name: 'read', arguments: { path: 'a.ts' } }, {
        type: 'toolCall',
        id: 'toolu_b',
        name: 'read',
        arguments: { path: 'b.ts' },
      }], 'toolUse'),
      line({
        type: 'message',
        timestamp: '2025-12-09T10:00:03.000Z',
        message: { role: 'toolResult', toolCallId: 'toolu_a', toolName: 'read', content: [{ type: 'text', text: 'a' }], isError: false },
      }),
      user('never mind'),
    )
    const synthetic = s.messages.find((m) => m.kind === 'synthetic' && m.role === 'tool')
    expect(synthetic?.parts).toEqual([{ type: 'tool_result', toolCallId: 'toolu_b', name: 'read', content: 'No result provided', isError: true }])
    expect(s.messages.indexOf(synthetic as (typeof s.messages)[number])).toBe(s.messages.findIndex((m) => m.id === 'line-5') - 1)
    expect(s.notes.join('\n')).toContain('1 tool call with no result answered "No result provided"')
  })
})
