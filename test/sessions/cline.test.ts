import { existsSync, readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/message/message.ts'
import { toolResultBlocks, toolResultText } from '../../src/message/tool-result-content.ts'
import { fromClineTask } from '../../src/sessions/cline.ts'

const fixture = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
const CLINE = 'cline/1767949200000'
const CLINE_NATIVE = 'cline/1768035600000'
const ROO = 'roo-code/0199a3c2-7d41-7b60-9e2f-5c8d1a4b7e30'

// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
const json = (p: string): any => JSON.parse(readFileSync(fixture(p), 'utf8'))
const read = (dir: string) => {
  const ui = existsSync(fixture(`${dir}/ui_messages.json`)) ? { ui: json(`${dir}/ui_messages.json`) } : {}
  const r = fromClineTask({ history: json(`${dir}/api_conversation_history.json`), ...ui })
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}
const partsOf = (ms: ReadonlyArray<Message>) => ms.flatMap((m) => m.parts.map((p) => ({ ...p, role: m.role })))

/** The facts of a task history, read with nothing but JSON walking. */
const factsOf = (history: Rec[]) => {
  const calls: Array<{ id: string; name: string; input: unknown }> = []
  const texts: Array<{ role: string; text: string }> = []
  const thinking: Array<{ text: string; signature: string }> = []
  const results: string[] = []
  let images = 0
  const resultImages: string[] = []
  let reasoningItems = 0
  for (const m of history) {
    if (m['type'] === 'reasoning' && !('role' in m)) {
      reasoningItems++
      continue
    }
    const blocks: Rec[] = typeof m['content'] === 'string' ? [{ type: 'text', text: m['content'] }] : m['content']
    for (const b of blocks) {
      if (b['type'] === 'tool_use') calls.push({ id: b['id'], name: b['name'], input: b['input'] })
      else if (b['type'] === 'thinking') thinking.push({ text: b['thinking'], signature: b['signature'] })
      else if (b['type'] === 'image') images++
      else if (b['type'] === 'tool_result') {
        const blocks: Rec[] = typeof b['content'] === 'string' ? [{ type: 'text', text: b['content'] }] : b['content']
        results.push(blocks.flatMap((x) => (x['type'] === 'text' ? [x['text']] : [])).join('\n'))
        for (const x of blocks) if (x['type'] === 'image') resultImages.push(x['source']['data'])
      } else if (b['type'] === 'text' && /^\[[\w.:-]+( for [^\n]*)?\] Result:/.test(b['text'])) results.push(b['text'])
      else if (b['type'] === 'text' && b['text'].trim() !== '') texts.push({ role: m['role'], text: b['text'] })
    }
  }
  return { calls, texts, thinking, results, images, resultImages, reasoningItems }
}

describe.each([
  ['Cline', CLINE],
  ['Cline (native tool calls)', CLINE_NATIVE],
  ['Roo Code', ROO],
])('a %s task folder', (_, dir) => {
  const history = json(`${dir}/api_conversation_history.json`) as Rec[]
  const facts = factsOf(history)
  const s = read(dir)
  const parts = partsOf(s.messages)

  it('keeps every user and assistant text', () => {
    for (const t of facts.texts) expect(parts).toContainEqual({ type: 'text', text: t.text, role: t.role })
  })

  it('keeps every tool call with its input, each followed by its result', () => {
    const got = parts.filter((p) => p.type === 'tool_call')
    expect(got.map((p) => (p.type === 'tool_call' ? { id: p.id, name: p.name, input: JSON.parse(p.arguments) as unknown } : undefined))).toEqual(facts.calls)
    const resultTexts = parts.flatMap((p) =>
      p.type === 'tool_result' ? [toolResultBlocks(p).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n'), toolResultText(p)] : []
    )
    for (const r of facts.results) expect(resultTexts).toContain(r)
    // every call has exactly one result; a call the file leaves unanswered gets the tool's own resumption answer, and a note says so
    for (const c of facts.calls) expect(parts.filter((p) => p.type === 'tool_result' && p.toolCallId === c.id)).toHaveLength(1)
    const answered = facts.results.length
    if (answered < facts.calls.length) expect(s.notes.join('\n')).toContain(`${facts.calls.length - answered} tool call`)
  })

  it('keeps every thinking block with its signature, every image and every reasoning item', () => {
    for (const t of facts.thinking) expect(parts).toContainEqual({ type: 'reasoning', text: t.text, signature: t.signature, role: 'assistant' })
    expect(parts.filter((p) => p.type === 'image')).toHaveLength(facts.images)
    // an image a tool returned stays an image block of its result, its bytes as they came
    const inResults = parts.flatMap((p) => (p.type === 'tool_result' ? toolResultBlocks(p) : [])).filter((b) => b.type === 'image')
    expect(inResults.map((b) => (b.type === 'image' && b.data !== undefined ? Buffer.from(b.data).toString('base64') : ''))).toEqual(facts.resultImages)
    expect(s.messages.flatMap((m) => (m.metadata?.['reasoningItems'] as unknown[] | undefined) ?? [])).toHaveLength(facts.reasoningItems)
  })
})

describe('ui_messages.json beside the history', () => {
  it('gives each message its time, and each reply its model, cost and usage', () => {
    const s = read(CLINE)
    const ui = json(`${CLINE}/ui_messages.json`) as Rec[]
    const requests = ui.filter((u) => u['say'] === 'api_req_started')
    const replies = s.messages.filter((m) => m.role === 'assistant')
    expect(replies).toHaveLength(requests.length)
    replies.forEach((m, k) => {
      const r = JSON.parse((requests[k] as Rec)['text']) as Rec
      expect(m.model).toBe('claude-sonnet-4-5-20250929')
      expect(m.provider).toBe('anthropic')
      expect(m.metadata?.['cost']).toBe(r['cost'])
      expect(m.createdAt).toBeDefined()
    })
    const users = s.messages.filter((m) => m.role === 'user')
    expect(users[0]?.createdAt).toBe(new Date((requests[0] as Rec)['ts']).toISOString())
    expect(s.notes.join('\n')).toContain('checkpoint_created')
  })

  it('Roo Code times each message by its own ts', () => {
    const s = read(ROO)
    const history = json(`${ROO}/api_conversation_history.json`) as Rec[]
    expect(s.messages[0]?.createdAt).toBe(new Date(history[0]?.['ts']).toISOString())
  })
})

describe('what the reader cannot read', () => {
  it('is a failure naming the file and field', () => {
    const r = fromClineTask({ history: [{ role: 'user', content: 42 }] })
    expect(E.isLeft(r) && r.left[0]?.path).toBe('api_conversation_history.json[0].content')
  })

  it('a block of a type it does not know is named in a note', () => {
    const r = fromClineTask({ history: [{ role: 'user', content: [{ type: 'text', text: '<task>\nhi\n</task>' }, { type: 'document', source: {} }] }] })
    expect(E.isRight(r) && r.right.notes).toEqual(['blocks of a type not read, left out: 1 user document'])
  })

  it('messages a condensing took out go to the archive', () => {
    const r = fromClineTask({
      history: [
        { role: 'user', content: 'one', ts: 1, condenseParent: 'c1' },
        { role: 'assistant', content: 'two', ts: 2, condenseParent: 'c1' },
        { role: 'assistant', content: 'summary of one and two', ts: 3, isSummary: true, condenseId: 'c1' },
        { role: 'user', content: 'three', ts: 4 },
      ],
    })
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right.archive.map((m) => m.parts[0])).toEqual([{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }])
    expect(r.right.messages.map((m) => m.metadata?.['condenseSummary'] ?? false)).toEqual([true, false])
  })
})
