import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromCopilotEvents, isCopilotEvent } from '../../src/sessions/copilot-events.ts'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import { EXIT, run } from '../../src/cli/main.ts'

/** Event streams Copilot's agent runtime wrote (sources in test/fixtures/copilot/SOURCES.md). */
const file = (name: string): string => new URL(`../fixtures/copilot/${name}`, import.meta.url).pathname
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>
const eventsOf = (name: string): Rec[] => readFileSync(file(name), 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec)

describe.each(['git-ai-vscode-event-stream.jsonl', 'git-ai-cli-session-events.jsonl'])('a Copilot session event stream %s', (name) => {
  const events = eventsOf(name)
  const r = fromCopilotEvents()(readFileSync(file(name), 'utf8'))
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const read = r.right
  const parts = read.messages.flatMap((m) => m.parts)

  it('every user message, reply text and tool call is kept, in the order of the stream', () => {
    const said = (type: string): string[] => events.flatMap((e) => (e['type'] === type && e['data']['content'] !== '' ? [e['data']['content']] : []))
    expect(read.messages.filter((m) => m.role === 'user').map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))).toEqual(
      said('user.message'),
    )
    expect(parts.flatMap((p) => (p.type === 'text' && read.messages.some((m) => m.role === 'assistant' && m.parts.includes(p)) ? [p.text] : []))).toEqual(
      said('assistant.message'),
    )
    const requested = events.flatMap((e) => (e['type'] === 'assistant.message' ? e['data']['toolRequests'] ?? [] : []))
    expect(parts.flatMap((p) => (p.type === 'tool_call' ? [[p.id, p.name, JSON.parse(p.arguments)]] : []))).toEqual(
      requested.map((t: Rec) => [t['toolCallId'], t['name'], JSON.parse(t['arguments'])]),
    )
  })

  it('every call has one result: the text the stream holds, else a text saying it holds none, named in a note', () => {
    for (const e of events.filter((x) => x['type'] === 'tool.execution_complete')) {
      const results = parts.flatMap((p) => (p.type === 'tool_result' && p.toolCallId === e['data']['toolCallId'] ? [p] : []))
      expect(results).toHaveLength(1)
      const text = e['data']['result']?.['content'] ?? e['data']['result']?.['text_result_for_llm']
      if (text !== undefined) expect(toolResultText(results[0] as (typeof results)[number])).toBe(text)
      else expect(read.notes.join('\n')).toContain('holds no text of')
    }
  })

  it('the session start is kept in metadata, and every other event is counted by type', () => {
    const start = events.find((e) => e['type'] === 'session.start') as Rec
    expect(read.messages[0]?.metadata?.['copilot']).toEqual(start['data'])
    const other = events.filter((e) =>
      !['session.start', 'user.message', 'assistant.message', 'tool.execution_complete', 'session.model_change'].includes(e['type'])
    )
    for (const e of other) expect(read.notes.join('\n')).toContain(e['type'])
  })

  it('the command line detects it by its signature (convert and check: readers-cli.test.ts)', async () => {
    let out = ''
    let err = ''
    const code = await run(['stats', file(name), '--json'], { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
    expect(code, err).toBe(EXIT.ok)
    expect(JSON.parse(out)).toMatchObject({ format: 'copilot-events' })
  })
})

describe('the Copilot CLI event stream', () => {
  it('takes the model from session.model_change for the replies after it', () => {
    const r = fromCopilotEvents()(readFileSync(file('git-ai-cli-session-events.jsonl'), 'utf8'))
    expect(E.isRight(r) && r.right.messages.filter((m) => m.role === 'assistant').map((m) => m.model)).toEqual(['gpt-4.1'])
  })

  it('reads reasoning, an error result, an image result and a sub-agent in the shapes the runtime writes', () => {
    const line = (type: string, data: Rec, id: string, extra: Rec = {}): string =>
      JSON.stringify({ type, data, id, timestamp: '2026-05-12T00:21:05.254Z', parentId: null, ...extra })
    const r = fromCopilotEvents()([
      line('user.message', { content: 'Shot', transformedContent: '<context/>Shot' }, 'e1'),
      line('assistant.reasoning', { reasoningId: 'r1', content: 'Take a screenshot.' }, 'e2'),
      line('assistant.message', {
        messageId: 'm1',
        content: '',
        toolRequests: [{ toolCallId: 'c1', name: 'shot', arguments: { full: true } }, { toolCallId: 'c2', name: 'task', arguments: '{}' }],
      }, 'e3'),
      line('tool.execution_complete', {
        toolCallId: 'c1',
        success: true,
        result: { content: 'ok', contents: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] },
      }, 'e4'),
      line('assistant.message', { messageId: 'm2', content: 'Looking.', parentToolCallId: 'c2' }, 'e5', { agentId: 'a1' }),
      line('tool.execution_complete', { toolCallId: 'c2', success: false, error: { message: 'sub-agent failed' } }, 'e6'),
    ].join('\n'))
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const ms = r.right.messages
    expect(ms[0]?.metadata?.['transformedContent']).toBe('<context/>Shot')
    expect(ms[1]?.parts.map((p) => p.type)).toEqual(['reasoning', 'tool_call', 'tool_call'])
    expect(ms[1]?.parts[1]).toMatchObject({ arguments: '{"full":true}' })
    const shot = ms[2]?.parts[0]
    expect(shot?.type === 'tool_result' && Array.isArray(shot.content) && shot.content.map((b) => b.type)).toEqual(['text', 'image'])
    expect(ms[3]?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'c2', content: 'sub-agent failed', isError: true })
    expect(ms[4]).toMatchObject({ kind: 'display', metadata: { subagent: { toolCallId: 'c2', agentId: 'a1' } } })
  })

  it('says how many messages a truncation dropped from what the runtime sent, since the stream does not name them', () => {
    const r = fromCopilotEvents()(JSON.stringify({
      type: 'session.truncation',
      data: { messagesRemovedDuringTruncation: 12, performedBy: 'BasicTruncator', preTruncationMessagesLength: 40, postTruncationMessagesLength: 28 },
      id: 'e1',
      timestamp: '2026-05-12T00:21:05.254Z',
      parentId: null,
    }))
    expect(E.isRight(r) && r.right.notes).toContain(
      'the runtime truncated 12 messages from what it sent (session.truncation, which names none): this history still holds them',
    )
  })

  it('is told from a pi session by its dotted event types', () => {
    expect(isCopilotEvent(eventsOf('git-ai-vscode-event-stream.jsonl')[0])).toBe(true)
    expect(isCopilotEvent({ type: 'message', id: 'a', parentId: null, timestamp: '2026-01-05T09:00:01.000Z', message: {} })).toBe(false)
  })
})
