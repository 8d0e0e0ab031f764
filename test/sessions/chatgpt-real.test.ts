import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromChatGPTExport } from '../../src/sessions/chatgpt.ts'

/** A conversation a ChatGPT data export held, anonymised and trimmed (source in test/fixtures/chatgpt/SOURCES.md). */
const path = new URL('../fixtures/chatgpt/conversations-gpt-5-pro.json', import.meta.url).pathname
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>
const doc = JSON.parse(readFileSync(path, 'utf8')) as Rec[]
const conversation = doc[0] as Rec

/** The active branch's messages, root first, walked from current_node with nothing but the parent links. */
const active: Rec[] = []
for (let id: string | null = conversation['current_node']; id !== null; id = conversation['mapping'][id]['parent']) {
  const m = conversation['mapping'][id]['message']
  if (m !== null) active.unshift(m)
}

describe('a real ChatGPT conversation (gpt-5-pro, an attached file)', () => {
  const r = fromChatGPTExport()(doc)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const read = (r.right[0] as (typeof r.right)[number]).read

  it('keeps every user and assistant turn, in order, with its text', () => {
    const turns = active.filter((m) => m['author']['role'] !== 'system' && m['author']['role'] !== 'tool')
    const all = read.messages.flatMap((x) => x.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))).join('\n\u0000\n')
    for (const m of turns) {
      const c = m['content']
      for (const s of [...(c['parts'] ?? []), c['user_profile'], c['user_instructions']]) if (typeof s === 'string') expect(all).toContain(s)
    }
    expect(read.messages.filter((m) => m.kind === 'normal').map((m) => [m.role, m.model])).toEqual([
      ['user', undefined],
      ['assistant', 'gpt-5-pro'],
    ])
  })

  it("reads GPT-5 Pro's reasoning summary, written as a tool message with no call, as the reply's reasoning", () => {
    const summary = active.find((m) => m['author']['role'] === 'tool') as Rec
    const reply = read.messages.find((m) => m.id === conversation['current_node'])
    expect(reply?.parts[0]).toEqual({ type: 'reasoning', text: summary['content']['parts'][0] })
    expect(reply?.metadata?.['reasoningRecap']).toBe(summary['metadata']['finished_text'])
    expect(read.messages.some((m) => m.id === summary['id'])).toBe(false)
    expect(read.notes).toContain('1 reasoning summary written as a tool message (metadata.finished_text) read as reasoning of the reply after it')
    expect(read.notes.join('\n')).not.toContain('no call before')
  })

  it('keeps the attachment, the citations and the content references in metadata, and names the attachment', () => {
    const user = active.find((m) => m['author']['role'] === 'user' && m['content']['content_type'] === 'text') as Rec
    const last = active[active.length - 1] as Rec
    expect(read.messages.find((m) => m.id === user['id'])?.metadata?.['attachments']).toEqual(user['metadata']['attachments'])
    const reply = read.messages.find((m) => m.id === last['id'])
    expect(reply?.metadata?.['citations']).toEqual(last['metadata']['citations'])
    expect(reply?.metadata?.['content_references']).toEqual(last['metadata']['content_references'])
    expect(read.notes.join('\n')).toContain('1 attachment')
  })
})
