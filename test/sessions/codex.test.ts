import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromCodexRollout, type SessionRead } from '../../src/sessions/mod.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { type Message } from '../../src/message/message.ts'

const FIXTURE = new URL('../fixtures/codex/rollout-2026-03-14T09-12-04-019a7c2e-5d41-7a90-8c3e-2f6b1d0e9a47.jsonl', import.meta.url)
const text = readFileSync(FIXTURE, 'utf8')
const records = text.split('\n').filter((l) => l.trim() !== '').map((l) =>
  JSON.parse(l) as { timestamp: string; type: string; payload: Record<string, unknown> }
)

const read = (t: string, o: Parameters<typeof fromCodexRollout>[0] = {}): SessionRead => {
  const r = fromCodexRollout(o)(t)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** The history and archive through chatfold JSONL and back: what a reader of the exported file gets. */
const viaJSONL = (r: SessionRead): ReadonlyArray<Message> => {
  const back = fromJSONL(toJSONL([...r.archive, ...r.messages]))
  if (E.isLeft(back)) throw new Error(JSON.stringify(back.left))
  return back.right
}

const line = (o: object): string => JSON.stringify({ timestamp: '2026-03-14T09:00:00.000Z', ...o })

describe('fromCodexRollout on a rollout file', () => {
  const r = read(text)
  const all = viaJSONL(r)
  const parts = all.flatMap((m) => m.parts)

  it('keeps every tool call with its arguments and every output with its call id (read from the file independently)', () => {
    const items = records.filter((x) => x.type === 'response_item').map((x) => x.payload)
    const calls = items.filter((p) => p['type'] === 'function_call' || p['type'] === 'custom_tool_call')
    const outputs = items.filter((p) => p['type'] === 'function_call_output' || p['type'] === 'custom_tool_call_output')
    expect(calls.length).toBeGreaterThan(2)
    for (const c of calls) {
      const call = parts.find((p) => p.type === 'tool_call' && p.id === c['call_id'])
      expect(call, String(c['call_id'])).toMatchObject({ name: c['name'] })
      const args = call?.type === 'tool_call' ? call.arguments : ''
      expect(c['type'] === 'custom_tool_call' ? (JSON.parse(args) as { input: string }).input : args).toBe(
        c['type'] === 'custom_tool_call' ? c['input'] : c['arguments'],
      )
    }
    for (const o of outputs) expect(parts.find((p) => p.type === 'tool_result' && p.toolCallId === o['call_id'])).toMatchObject({ content: o['output'] })
  })

  it('keeps every reasoning summary, the encrypted content as the signature, and every message text', () => {
    const items = records.filter((x) => x.type === 'response_item').map((x) => x.payload)
    for (const p of items.filter((x) => x['type'] === 'reasoning')) {
      const enc = p['encrypted_content'] as string
      const summaries = (p['summary'] as Array<{ text: string }>).map((s) => s.text)
      const mine = parts.filter((x) => x.type === 'reasoning' && (x.signature ?? x.text).includes(enc))
      expect(mine.length, enc).toBeGreaterThan(0)
      for (const s of summaries) expect(mine.map((x) => (x.type === 'reasoning' ? x.text : ''))).toContain(s)
    }
    for (const p of items.filter((x) => x['type'] === 'message'))
      for (const c of p['content'] as Array<{ text: string }>) expect(parts.some((x) => x.type === 'text' && x.text === c.text), c.text).toBe(true)
  })

  it('puts each token_count’s last usage on the reply it counts, as reported', () => {
    const usages = records
      .filter((x) => x.type === 'event_msg' && x.payload['type'] === 'token_count' && x.payload['info'] !== null)
      .map((x) => (x.payload['info'] as { last_token_usage: Record<string, number> }).last_token_usage)
    const onReplies = all.filter((m) => m.role === 'assistant' && m.kind === 'normal' && m.metadata?.['usage'] !== undefined).map((m) => m.metadata?.['usage'])
    // OpenAI's input_tokens include the cached ones, which the usage contract keeps apart
    const expected = usages.map((u) => ({
      input: Number(u['input_tokens']) - Number(u['cached_input_tokens'] ?? 0),
      output: u['output_tokens'],
      cacheRead: u['cached_input_tokens'],
      reasoning: u['reasoning_output_tokens'],
    }))
    // one token_count repeats the one before it with no reply between: it is kept as a metadata message, not counted twice
    const kept = all.filter((m) =>
      m.kind === 'metadata' && (m.metadata?.['codex'] as { payload?: { type?: string } } | undefined)?.payload?.type === 'token_count'
    )
    expect(kept).toHaveLength(1)
    expect(onReplies).toHaveLength(expected.length - kept.length)
    for (const u of onReplies) expect(expected).toContainEqual(u)
  })

  it('gives replies model, provider and createdAt, and marks injected text synthetic with its origin', () => {
    for (const m of r.messages.filter((x) => x.role === 'assistant' && x.kind === 'normal')) {
      expect(m).toMatchObject({ model: 'gpt-5-codex', provider: 'openai' })
      expect(m.createdAt).toMatch(/^2026-03-14T09:/)
    }
    const origins = all.filter((m) => m.kind === 'synthetic').map((m) => m.metadata?.['origin'])
    expect(origins).toEqual(expect.arrayContaining(['permissions_instructions', 'agents_md', 'environment_context']))
    expect(all.find((m) => m.metadata?.['origin'] === 'permissions_instructions')?.role).toBe('system')
    expect(all.find((m) => m.metadata?.['origin'] === 'environment_context')?.role).toBe('user')
  })

  it('turns the compacted record into a compaction summary, with what it replaced in the archive', () => {
    const compacted = records.find((x) => x.type === 'compacted')?.payload['message']
    const summary = r.messages.find(isCompactionSummary)
    expect(summary?.parts[0]).toEqual({ type: 'text', text: compacted })
    expect(r.archive.some((m) => m.parts.some((p) => p.type === 'tool_call' && p.id === 'call_9QqHcL0rWmTz2n4K'))).toBe(true)
    expect(r.messages.some((m) => m.parts.some((p) => p.type === 'tool_call' && p.id === 'call_9QqHcL0rWmTz2n4K'))).toBe(false)
    expect(r.notes.join('\n')).toMatch(/a compaction replaced \d+ messages/)
  })

  it('names in its notes the records that are not part of the conversation', () => {
    const notes = r.notes.join('\n')
    for (const t of ['patch_apply_end', 'exec_command_end', 'task_complete', 'context_compacted', 'ghost_snapshot', 'web searches', '2 user_message'])
      expect(notes).toContain(t)
    expect(all.find((m) => m.kind === 'display')?.parts[0]).toEqual({ type: 'text', text: 'Web search: cli --dry-run flag output wording' })
  })
})

describe('fromCodexRollout on single records', () => {
  it('reads a compaction’s replacement history after its summary', () => {
    const t = [
      line({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'old question' }] } }),
      line({
        type: 'compacted',
        payload: {
          message: 'what happened so far',
          replacement_history: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'kept question' }] }],
        },
      }),
    ].join('\n')
    const r = read(t)
    expect(r.messages.map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].text : ''))).toEqual(['what happened so far', 'kept question'])
    expect(r.archive.map((m) => (m.parts[0]?.type === 'text' ? m.parts[0].text : ''))).toEqual(['old question'])
  })

  it('reads a local shell call and an output given as content items or { content, success }', () => {
    const t = [
      line({ type: 'response_item', payload: { type: 'local_shell_call', call_id: 'ls1', status: 'completed', action: { type: 'exec', command: ['ls'] } } }),
      line({ type: 'response_item', payload: { type: 'function_call_output', call_id: 'ls1', output: { content: 'denied', success: false } } }),
      line({ type: 'response_item', payload: { type: 'function_call', name: 'view', arguments: '{}', call_id: 'v1' } }),
      line({
        type: 'response_item',
        payload: {
          type: 'function_call_output',
          call_id: 'v1',
          output: [{ type: 'input_text', text: 'a picture:' }, { type: 'input_image', image_url: 'https://example.com/a.png' }],
        },
      }),
    ].join('\n')
    const r = read(t)
    const parts = r.messages.flatMap((m) => m.parts)
    expect(parts.find((p) => p.type === 'tool_call' && p.id === 'ls1')).toMatchObject({
      name: 'local_shell',
      arguments: '{"type":"exec","command":["ls"]}',
      status: 'error',
    })
    expect(parts.find((p) => p.type === 'tool_result' && p.toolCallId === 'ls1')).toMatchObject({ content: 'denied', isError: true })
    expect(parts.find((p) => p.type === 'tool_result' && p.toolCallId === 'v1')).toMatchObject({
      content: [{ type: 'text', text: 'a picture:' }, { type: 'image', url: 'https://example.com/a.png' }],
    })
  })

  it('fails on a bad record with its line and field, or skips it with badLines: skip', () => {
    const t = [
      line({ type: 'session_meta', payload: { id: 's' } }),
      '{"type":"response_item",',
      line({ type: 'response_item', payload: { type: 'function_call', call_id: 'c', arguments: '{}' } }),
      line({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] } }),
    ].join('\n')
    const failed = fromCodexRollout({})(t)
    expect(E.isLeft(failed) && failed.left[0]?.path).toBe('line 2')
    const r = read(t, { badLines: 'skip' })
    expect(r.skipped.map((s) => s.line)).toEqual([2, 3])
    expect(r.skipped[1]?.reason).toContain('payload.name')
    expect(r.messages.some((m) => m.parts.some((p) => p.type === 'text' && p.text === 'hi'))).toBe(true)
    const bad = fromCodexRollout({})(t.split('\n').filter((_, i) => i !== 1).join('\n'))
    expect(E.isLeft(bad) && bad.left[0]).toMatchObject({ path: 'line 2.payload.name', expected: 'string' })
  })

  it('reads the event messages as the conversation when a rollout has no message items', () => {
    const r = read(
      [
        line({ type: 'event_msg', payload: { type: 'user_message', message: 'hello' } }),
        line({ type: 'event_msg', payload: { type: 'agent_message', message: 'hi there' } }),
      ].join('\n'),
    )
    expect(r.messages.map((m) => [m.role, m.parts[0]])).toEqual([
      ['user', { type: 'text', text: 'hello' }],
      ['assistant', { type: 'text', text: 'hi there' }],
    ])
    expect(r.notes[0]).toContain('no message items')
  })

  it('reads the older form: a bare session line, state markers and bare items without timestamps', () => {
    const t = [
      JSON.stringify({ id: 'old-1', timestamp: '2025-08-20T10:00:00.000Z', instructions: null, git: { branch: 'main' } }),
      JSON.stringify({ record_type: 'state' }),
      JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }] }),
      JSON.stringify({ type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'c1' }),
      JSON.stringify({ type: 'function_call_output', call_id: 'c1', output: 'a.txt' }),
      JSON.stringify({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'One file: a.txt' }] }),
      JSON.stringify({ type: 'message', role: 'assistant' }),
    ].join('\n')
    const failed = fromCodexRollout({})(t)
    expect(E.isLeft(failed) && failed.left[0]?.path).toBe('line 7.content')
    const r = read(t, { badLines: 'skip' })
    expect(r.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant'])
    expect(r.messages[0]).toMatchObject({ kind: 'metadata', createdAt: '2025-08-20T10:00:00.000Z' })
    expect(r.messages[3]?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'c1', content: 'a.txt' })
    expect(r.notes.join('\n')).toContain('1 state markers')
  })
})

describe('images in Codex tool outputs', () => {
  const IMAGES = readFileSync(new URL('../fixtures/codex/rollout-2026-04-02T10-00-00-019b2f4a-7c13-7e20-9d5a-4e8c0b6f1d23.jsonl', import.meta.url), 'utf8')
  const PNG = Uint8Array.from(
    atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
    (c) => c.charCodeAt(0),
  )
  const s = read(IMAGES)
  const results = s.messages.flatMap((m) => m.parts).flatMap((p) => (p.type === 'tool_result' ? [p] : []))
  it('carries the input_image of a view_image output in the result', () => {
    expect(results[0]).toMatchObject({ toolCallId: 'call_Vi3wImg7Kq2Pz9Rt', content: [{ type: 'image', data: PNG, mediaType: 'image/png' }] })
  })
  it("carries an MCP screenshot's text and image in order, with nothing left aside in metadata", () => {
    expect(results[1]?.content).toEqual([{ type: 'text', text: 'Screenshot of http://localhost:5173/' }, { type: 'image', data: PNG, mediaType: 'image/png' }])
    expect(s.messages.some((m) => JSON.stringify(m.metadata ?? {}).includes('outputs'))).toBe(false)
  })
})
