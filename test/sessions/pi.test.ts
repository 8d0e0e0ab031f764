import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromPiSession } from '../../src/sessions/pi.ts'

const FILE = new URL('../fixtures/pi/2026-02-20T20-17-00-000Z_1a6f6bc4-2e7d-4c1a-9b8e-5f0d3c2a1b90.jsonl', import.meta.url).pathname
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>
const text = readFileSync(FILE, 'utf8')
const lines = text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec)

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
    for (const e of path) {
      if (e['type'] !== 'message') continue
      const m = e['message'] as Rec
      const blocks: Rec[] = typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : (m['content'] ?? [])
      if (m['role'] === 'toolResult') {
        expect(parts).toContainEqual({
          type: 'tool_result',
          toolCallId: m['toolCallId'],
          name: m['toolName'],
          content: blocks.map((b) => b['text']).join('\n'),
          isError: m['isError'],
        })
        continue
      }
      if (m['role'] === 'bashExecution') {
        expect(parts.some((p) => p.type === 'text' && p.text.includes(m['command']) && p.text.includes(m['output']))).toBe(true)
        continue
      }
      for (const b of blocks) {
        if (b['type'] === 'text') expect(parts).toContainEqual({ type: 'text', text: b['text'] })
        else if (b['type'] === 'thinking') expect(parts).toContainEqual({ type: 'reasoning', text: b['thinking'], signature: b['thinkingSignature'] })
        else if (b['type'] === 'toolCall')
          expect(parts).toContainEqual({ type: 'tool_call', id: b['id'], name: b['name'], arguments: JSON.stringify(b['arguments']), status: 'complete' })
      }
      if (m['role'] === 'assistant')
        expect(all.find((x) => x.id === e['id'])?.metadata?.['usage']).toEqual({
          input: m['usage']['input'],
          output: m['usage']['output'],
          cacheRead: m['usage']['cacheRead'],
          cacheWrite: m['usage']['cacheWrite'],
        })
    }
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
