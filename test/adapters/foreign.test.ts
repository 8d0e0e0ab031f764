import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { isCompactionBoundary, providerPart } from '../../src/message/part-make.ts'
import { type Part } from '../../src/message/part-model.ts'
import { decodePart, encodePart } from '../../src/message/part-registry.ts'
import { forLLM, lastCompactionBoundary } from '../../src/history/views.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { forTarget } from '../../src/adapters/foreign.ts'
import type { AdapterNote } from '../../src/adapters/types.ts'

const compaction = providerPart('anthropic', 'compaction', { type: 'compaction', content: 'The user asked for a parser; it is written and tested.' })

describe('provider parts', () => {
  it('round-trip through the part codec with their data untouched', () => {
    const p = providerPart('openai', 'web_search_call', { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } })
    const wire = encodePart(p)
    expect(wire).toEqual({ type: 'provider', data: { provider: 'openai', kind: 'web_search_call', data: p.data } })
    expect(decodePart(JSON.parse(JSON.stringify(wire)))).toEqual(E.right(p))
  })

  it('keep provider fields on built-in parts', () => {
    const p: Part = { type: 'text', text: 'hi', providerFields: { anthropic: { cache_control: { type: 'ephemeral' } } } }
    expect(decodePart(encodePart(p))).toEqual(E.right(p))
  })

  it('recognise a compaction boundary', () => {
    expect(isCompactionBoundary(compaction)).toBe(true)
    expect(isCompactionBoundary(providerPart('anthropic', 'web_search_tool_result', {}))).toBe(false)
  })
})

describe('a compaction boundary in forLLM', () => {
  const system = textMessage('system', 'Be brief.', { id: 's' })
  const old = textMessage('user', 'old request', { id: 'old' })
  const oldReply = textMessage('assistant', 'old answer', { id: 'oldReply' })
  const boundary = makeMessage({ id: 'b', role: 'assistant', parts: [{ type: 'text', text: 'before' }, compaction, { type: 'text', text: 'after' }] })
  const next = textMessage('user', 'new request', { id: 'next' })

  it('sends the system messages, the boundary and what follows, never what it replaced', () => {
    const view = forLLM([system, old, oldReply, boundary, next])
    expect(view.map((m) => m.id)).toEqual(['s', 'b', 'next'])
    expect(view[1]?.parts).toEqual([compaction, { type: 'text', text: 'after' }])
    expect(lastCompactionBoundary([system, old, oldReply, boundary, next])).toEqual({ message: 3, part: 1 })
  })

  it('keeps a history without a boundary as it is', () => {
    const ms = [system, old, oldReply, next]
    expect(forLLM(ms)).toBe(ms)
    expect(lastCompactionBoundary(ms)).toBeUndefined()
  })

  it('ignores a boundary in a message not sent to the model', () => {
    const hidden = makeMessage({ ...boundary, kind: 'display' })
    expect(lastCompactionBoundary([old, hidden, next])).toBeUndefined()
  })
})

describe('forTarget', () => {
  it('leaves out another provider’s part and fields, each with a note', () => {
    const m = makeMessage({
      id: 'm1',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'See', providerFields: { anthropic: { citations: [] }, openai: { annotations: [] } } },
        providerPart('anthropic', 'mystery_block', { type: 'mystery_block' }),
      ],
    })
    const notes: AdapterNote[] = []
    const out = forTarget('openai', [m], notes)
    expect(out[0]?.parts).toEqual([{ type: 'text', text: 'See', providerFields: { openai: { annotations: [] } } }])
    expect(notes.map((n) => n.kind).sort()).toEqual(['provider_fields_dropped', 'provider_part_dropped'])
    expect(notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_dropped', messageId: 'm1', provider: 'anthropic', type: 'mystery_block' }))
    expect(notes).toContainEqual(expect.objectContaining({ kind: 'provider_fields_dropped', messageId: 'm1', provider: 'anthropic', fields: ['citations'] }))
  })

  it('returns the history itself when nothing is foreign', () => {
    const ms = [textMessage('user', 'hi'), makeMessage({ role: 'assistant', parts: [providerPart('openai', 'x', {})] })]
    expect(forTarget('openai', ms, [])).toBe(ms)
  })

  it('reports through the adapter what it left out', () => {
    const m = makeMessage({ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'ok' }, providerPart('google', 'somethingNew', { somethingNew: {} })] })
    const r = toOpenAIChat()([textMessage('user', 'hi'), m])
    if (E.isLeft(r)) throw new Error('expected a request')
    expect(r.right.report.notes).toContainEqual(
      expect.objectContaining({ kind: 'provider_part_dropped', messageId: 'a', provider: 'google', type: 'somethingNew' }),
    )
  })
})

describe('provider parts in renders', () => {
  const m = makeMessage({
    id: 'r1',
    role: 'assistant',
    parts: [compaction, providerPart('anthropic', 'web_search_tool_result', { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }), {
      type: 'text',
      text: 'Done.',
    }],
  })

  it('shows each as a reference in plain text and logs', async () => {
    const { render, renderLogLines } = await import('../../src/history/render.ts')
    const text = render([m])
    expect(text).toContain('[anthropic compaction: The user asked for a parser; it is written and tested.]')
    expect(text).toContain('[anthropic web_search_tool_result]')
    expect(renderLogLines(m)).toContain('[assistant] [anthropic web_search_tool_result]')
  })

  it('marks a compaction in Markdown, with its summary', async () => {
    const { renderMarkdown } = await import('../../src/history/render.ts')
    const md = renderMarkdown([m])
    expect(md).toContain('> **Compacted by anthropic:** The user asked for a parser')
    expect(md).toContain('*\\[anthropic web\\_search\\_tool\\_result\\]*')
  })

  it('leaves the boundary out of a transcript line, which renderTranscript passes as the previous summary', async () => {
    const { renderTranscriptLines } = await import('../../src/history/render.ts')
    const line = renderTranscriptLines(m)
    expect(line).not.toContain('compaction')
    expect(line).toContain('[anthropic web_search_tool_result]')
  })
})
