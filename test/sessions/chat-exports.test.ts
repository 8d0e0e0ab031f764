import { readFileSync } from 'node:fs'
import { toolResultBlocks, toolResultText } from '../../src/message/tool-result-content.ts'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import type { Message } from '../../src/message/message.ts'
import { fromChatGPTExport } from '../../src/sessions/chatgpt.ts'
import { fromClaudeAiExport } from '../../src/sessions/claude-ai.ts'
import { joinConversations } from '../../src/sessions/chat-export.ts'

// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>
const json = (p: string): Rec[] => JSON.parse(readFileSync(new URL(`../fixtures/${p}`, import.meta.url).pathname, 'utf8')) as Rec[]
const texts = (ms: ReadonlyArray<Message>): string[] =>
  ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' || p.type === 'reasoning' ? [p.text] : p.type === 'tool_result' ? [toolResultText(p)] : [])))
const metaJSON = (ms: ReadonlyArray<Message>): string => JSON.stringify(ms.map((m) => m.metadata ?? {}))

/** The fields of each block type that the reader turns into parts (the rest goes to metadata). */
const READ_FIELDS: Record<string, string[]> = {
  text: ['type', 'text', 'citations'],
  thinking: ['type', 'thinking', 'signature', 'summaries'],
  tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'name', 'content', 'is_error'],
}

const CHATGPT = [
  'chatgpt/conversations.json',
  'chatgpt/conversations-image-gen.json',
  'chatgpt/conversations-connector.json',
  'chatgpt/conversations-gpt-5-pro.json',
]

describe.each(CHATGPT)(
  'the ChatGPT data export %s',
  (file) => {
    const doc = json(file)
    const r = fromChatGPTExport({ branches: 'all' })(doc)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const read = r.right

    it('reads every conversation, with its id, title and time', () => {
      expect(read.map((c) => [c.id, c.title, c.createdAt])).toEqual(
        doc.map((c) => [c['conversation_id'], c['title'], new Date(c['create_time'] * 1000).toISOString()]),
      )
    })

    it.each(doc.map((c, i) => [c['title'] as string, i] as const))('%s: every node of the mapping is kept or named', (_, i) => {
      const c = doc[i] as Rec
      const got = (read[i] as (typeof read)[number]).read
      const all = texts(got.messages).join('\n\u0000\n')
      const calls = got.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p] : [])))
      // the active branch, walked from current_node with nothing but the parent links
      const active = new Set<string>()
      for (let id: string | null = c['current_node']; id !== null && id !== undefined; id = c['mapping'][id]?.['parent'] ?? null) active.add(id)
      for (const [id, node] of Object.entries(c['mapping'] as Record<string, Rec>)) {
        const m = node['message'] as Rec | null
        if (m === null) continue
        const content = m['content'] as Rec
        const strings = [
          ...(Array.isArray(content['parts']) ? content['parts'].filter((p: unknown) => typeof p === 'string') : []),
          content['text'],
          content['result'],
          content['user_profile'],
          content['user_instructions'],
        ].filter((s) => typeof s === 'string' && s !== '')
        if (m['author']['role'] === 'assistant' && m['recipient'] !== 'all') {
          const call = calls.find((p) => p.id === id)
          expect(call?.name).toBe(m['recipient'])
          if (content['content_type'] === 'thoughts') {
            // a connector's call is shown as a thought addressed to the tool: the export holds no arguments
            expect(call?.arguments).toBe('{}')
            for (const t of content['thoughts']) expect(all).toContain(t['summary'])
          } else {
            // the call's text: `code` content holds it in `text`, `text` content (an image generation's prompt) in `parts`
            const said = typeof content['text'] === 'string' ? content['text'] : content['parts'].join('\n\n')
            let input: unknown
            try {
              input = JSON.parse(said)
            } catch {
              input = { input: said }
            }
            expect(JSON.parse(call?.arguments ?? 'null')).toEqual(input)
          }
          expect(got.messages.filter((x) => x.parts.some((p) => p.type === 'tool_result' && p.toolCallId === id))).toHaveLength(1)
          continue
        }
        if (m['author']['role'] === 'tool' && content['content_type'] === 'thoughts') {
          // the connector's answer, also a thought: the result of the call before it, named by the tool
          const results = got.messages.flatMap((x) => x.parts.flatMap((p) => (p.type === 'tool_result' && p.name === m['author']['name'] ? [p] : [])))
          expect(results.map((p) => toolResultText(p))).toEqual([content['thoughts'].map((t: Rec) => t['summary']).join('\n\n')])
          continue
        }
        for (const s of strings) expect(all).toContain(s)
        if (content['content_type'] === 'thoughts') { for (const t of content['thoughts']) expect(all).toContain(t['content']) }
        if (content['content_type'] === 'reasoning_recap') expect(metaJSON(got.messages)).toContain(content['content'])
        for (const p of Array.isArray(content['parts']) ? content['parts'] : [])
          if (typeof p === 'object' && p !== null) expect(metaJSON(got.messages)).toContain(p['asset_pointer'])
        if (!active.has(id) && strings.length > 0) expect(got.messages.find((x) => x.id === id)?.kind).toBe('display')
      }
      if (c['mapping'] !== undefined && JSON.stringify(c).includes('image_asset_pointer')) expect(got.notes.join('\n')).toContain('image_asset_pointer')
    })
  },
)

describe('the ChatGPT data export', () => {
  const doc = json('chatgpt/conversations.json')

  it('reads only the active branch by default, and says how many others there are', () => {
    const active = fromChatGPTExport()(doc)
    if (E.isLeft(active)) throw new Error(JSON.stringify(active.left))
    const first = (active.right[0] as (typeof active.right)[number]).read
    expect(first.messages.every((m) => m.kind !== 'display')).toBe(true)
    expect(first.notes).toContain('1 other branch (an edit or a regeneration) left out (--all-branches reads them)')
  })

  it("a connector's calls, shown as thoughts, are calls answered by their tool messages, and a note names them", () => {
    const r = fromChatGPTExport()(json('chatgpt/conversations-connector.json'))
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const read = (r.right[0] as (typeof r.right)[number]).read
    expect(read.messages.map((m) => [m.role, m.parts.map((p) => (p.type === 'tool_call' ? `call ${p.name}` : p.type))])).toEqual([
      ['system', ['text']],
      ['user', ['text']],
      ['assistant', ['reasoning', 'reasoning', 'call gmail.search_email_ids']],
      ['tool', ['tool_result']],
      ['assistant', ['reasoning', 'call gmail.batch_read_email']],
      ['tool', ['tool_result']],
      ['assistant', ['text']],
    ])
    expect(read.notes).toContain("2 tool calls the export shows only as a thought addressed to the tool (a connector's), without their arguments: read with {}")
  })

  it('a call the export holds no tool message for is followed by a synthetic result saying so', () => {
    const node = (id: string, parent: string | null, children: string[], message: Rec | null) => ({ id, parent, children, message })
    const r = fromChatGPTExport()([
      {
        id: 'c',
        current_node: 'u2',
        mapping: {
          u1: node('u1', null, ['a1'], { id: 'u1', author: { role: 'user' }, content: { content_type: 'text', parts: ['Take a screenshot'] } }),
          a1: node('a1', 'u1', ['u2'], {
            id: 'a1',
            author: { role: 'assistant' },
            recipient: 'computer.do',
            content: { content_type: 'code', text: '{"action":"screenshot"}' },
          }),
          u2: node('u2', 'a1', [], { id: 'u2', author: { role: 'user' }, content: { content_type: 'text', parts: ['Never mind'] } }),
        },
      },
    ])
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const ms = (r.right[0] as (typeof r.right)[number]).read
    expect(ms.messages.map((m) => `${m.role}/${m.kind}`)).toEqual(['user/normal', 'assistant/normal', 'tool/synthetic', 'user/normal'])
    expect(ms.messages[2]?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'a1', content: '(the export holds no result of this call)' })
    expect(ms.notes).toContain('1 tool call with no result in the export followed by a synthetic tool message saying so')
  })

  it('names a current_node that is not in the mapping', () => {
    const bad = fromChatGPTExport()([{ id: 'c', mapping: { a: { id: 'a', message: null, parent: null, children: [] } }, current_node: 'zz' }])
    expect(E.isLeft(bad) && bad.left[0]?.path).toBe('[0].current_node')
  })
})

const CLAUDE_AI = ['claude-ai/conversations.json', 'claude-ai/conversations-screenshot.json', 'claude-ai/conversations-mcp.json']

describe.each(CLAUDE_AI)('the Claude.ai data export %s', (file) => {
  const doc = json(file)
  const r = fromClaudeAiExport({ branches: 'all' })(doc)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const read = r.right

  it.each(doc.map((c, i) => [c['uuid'] as string, i] as const))('%s: every message, block, attachment and file is kept or named', (_, i) => {
    const c = doc[i] as Rec
    const got = (read[i] as (typeof read)[number]).read
    const all = texts(got.messages).join('\n\u0000\n')
    const calls = got.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p] : [])))
    const resultImages = got.messages.flatMap((m) =>
      m.parts.flatMap((
        p,
      ) => (p.type === 'tool_result'
        ? toolResultBlocks(p).flatMap((b) => (b.type === 'image' && b.data !== undefined ? [Buffer.from(b.data).toString('base64')] : []))
        : [])
      )
    )
    const images: string[] = []
    for (const m of c['chat_messages'] as Rec[]) {
      const blocks: Rec[] = Array.isArray(m['content']) && m['content'].length > 0 ? m['content'] : [{ type: 'text', text: m['text'] }]
      for (const b of blocks) {
        // a text block's citations (a source's url, the span it backs) are kept in metadata
        for (const cite of b['type'] === 'text' ? b['citations'] ?? [] : []) expect(metaJSON(got.messages)).toContain(JSON.stringify(cite))
        if (b['type'] === 'text' && b['text'] !== '') expect(all).toContain(b['text'])
        else if (b['type'] === 'thinking') expect(all).toContain(b['thinking'])
        else if (b['type'] === 'tool_use') expect(calls.map((p) => [p.name, JSON.parse(p.arguments)])).toContainEqual([b['name'], b['input']])
        else if (b['type'] === 'tool_result') {
          for (const x of b['content']) {
            if (x['type'] === 'image') images.push(x['source']['data'])
            else expect(all).toContain(x['text'])
          }
          // what an MCP tool returned beside its content is kept on the tool message of its result
          const holder = got.messages.find((m) => m.parts.some((p) => p.type === 'tool_result' && p.toolCallId === b['tool_use_id']))
          const kept = (holder?.metadata?.['toolResult'] ?? {}) as Rec
          for (const k of ['structured_content', 'meta']) if (b[k] != null) expect(kept[k]).toEqual(b[k])
        } else expect(metaJSON(got.messages)).toContain(JSON.stringify(b))
        // a known block's every other field that is not null (its times, an MCP call's integration) is in metadata as it came
        const read = READ_FIELDS[b['type']]
        if (read !== undefined) {
          for (const [k, v] of Object.entries(b))
            if (!read.includes(k) && v != null) expect(metaJSON(got.messages)).toContain(`${JSON.stringify(k)}:${JSON.stringify(v)}`)
        }
      }
      for (const a of m['attachments'] ?? []) {
        expect(all).toContain(a['extracted_content'])
        expect(metaJSON(got.messages)).toContain(a['file_name'])
      }
      for (const f of m['files'] ?? []) expect(metaJSON(got.messages)).toContain(f['file_name'])
    }
    // an image a tool returned is an image block of its result, its bytes as they came
    expect(resultImages).toEqual(images)
    // every call has one result, a result the export lacks said so
    for (const p of calls) expect(got.messages.filter((x) => x.parts.some((q) => q.type === 'tool_result' && q.toolCallId === p.id))).toHaveLength(1)
  })
})

describe('the Claude.ai data export', () => {
  const r = fromClaudeAiExport({ branches: 'all' })(json('claude-ai/conversations.json'))
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const read = r.right

  it('an edited prompt leaves a branch, read after the active one as a display message', () => {
    const first = (read[0] as (typeof read)[number]).read
    const edited = first.messages.find((m) => m.id === '01a2b3c4-0005-4000-8000-000000000005')
    expect(edited?.kind).toBe('display')
    expect(edited?.metadata?.['branch']).toEqual({ index: 1, leaf: '01a2b3c4-0005-4000-8000-000000000005', forkedFrom: '01a2b3c4-0002-4000-8000-000000000002' })
  })

  it("keeps a tool result's structured_content and meta on its tool message, and a note counts them", () => {
    const mcp = fromClaudeAiExport()(json('claude-ai/conversations-mcp.json'))
    if (E.isLeft(mcp)) throw new Error(JSON.stringify(mcp.left))
    const got = (mcp.right[0] as (typeof mcp.right)[number]).read
    // (the other fields beside the content, its times and the MCP integration, are kept with them)
    expect(got.messages.filter((m) => m.role === 'tool').map((m) => m.metadata?.['toolResult'])).toMatchObject([
      { structured_content: { currency: 'USD', amount: 12 } },
      { meta: { output_format_category: 'md' } },
    ])
    expect(got.notes.find((n) => n.startsWith("tool results' fields beside their content, kept in metadata.toolResult of their tool messages:")))
      .toMatch(/\b1 structured_content\b.*\b1 meta\b/)
  })

  it("keeps an MCP call's integration, server and times by its call id, and a note counts them", () => {
    const mcp = fromClaudeAiExport()(json('claude-ai/conversations-mcp.json'))
    if (E.isLeft(mcp)) throw new Error(JSON.stringify(mcp.left))
    const got = (mcp.right[0] as (typeof mcp.right)[number]).read
    const calls = got.messages.flatMap((m) => Object.entries((m.metadata?.['toolCalls'] ?? {}) as Record<string, Rec>))
    expect(calls.map(([, fields]) => fields['integration_name'])).toEqual(['Parcel Desk', 'File Creation'])
    expect(calls.every(([id]) => got.messages.some((m) => m.parts.some((p) => p.type === 'tool_call' && p.id === id)))).toBe(true)
    expect(got.notes.find((n) => n.startsWith("tool calls' fields beside their name and input"))).toMatch(/\b2 integration_name\b/)
  })

  it('names a sender it cannot read', () => {
    const bad = fromClaudeAiExport()([{ uuid: 'c', chat_messages: [{ uuid: 'm', sender: 'system', text: 'x' }] }])
    expect(E.isLeft(bad) && bad.left[0]?.path).toBe('[0].chat_messages[0].sender')
  })
})

describe('joinConversations', () => {
  it('opens each conversation with a metadata message naming it', () => {
    const r = fromClaudeAiExport()(json('claude-ai/conversations.json'))
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const j = joinConversations(r.right)
    expect(j.messages.filter((m) => m.kind === 'metadata').map((m) => m.metadata?.['conversation'])).toEqual([
      { id: '8b3f0a21-5c6d-4e7f-9a0b-1c2d3e4f5a6b', title: 'Late fee rounding' },
      { id: '8b3f0a21-0000-4e7f-9a0b-000000000002' },
    ])
    expect(j.notes[0]).toBe('2 conversations read one after another, each opened by a metadata message naming it')
  })
})

describe('an older Claude.ai export (2024)', () => {
  it('pairs a call without an id and a result without a tool_use_id, as such exports write them', () => {
    const r = fromClaudeAiExport()([{
      uuid: 'c1',
      name: 'Chart',
      created_at: '2024-06-01T10:00:00.000000Z',
      chat_messages: [
        {
          uuid: 'm1',
          sender: 'human',
          text: 'Sum 2 and 3',
          created_at: '2024-06-01T10:00:00.000000Z',
          content: [{ type: 'text', text: 'Sum 2 and 3' }],
          attachments: [],
          files: [],
        },
        {
          uuid: 'm2',
          sender: 'assistant',
          text: '',
          created_at: '2024-06-01T10:00:02.000000Z',
          content: [
            { type: 'tool_use', name: 'repl', input: { code: 'console.log(2 + 3)' } },
            { type: 'tool_result', name: 'repl', content: [{ type: 'text', text: '5' }], is_error: false },
            { type: 'text', text: 'It is 5.' },
          ],
          attachments: [],
          files: [],
        },
      ],
    }])
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const ms = (r.right[0] as (typeof r.right)[number]).read.messages
    const call = ms.flatMap((m) => m.parts).find((p) => p.type === 'tool_call')
    expect(call).toMatchObject({ type: 'tool_call', name: 'repl', arguments: '{"code":"console.log(2 + 3)"}' })
    expect(ms.flatMap((m) => m.parts).find((p) => p.type === 'tool_result')).toMatchObject({
      toolCallId: call?.type === 'tool_call' ? call.id : '',
      content: '5',
    })
    expect(ms.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
  })
})
