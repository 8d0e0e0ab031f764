/**
 * The builder through its entry point, fed a recorded provider stream (Anthropic Messages SSE
 * events: thinking with a signature, text, two tool calls with fragmented JSON, a stop reason).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createBuilder } from '../../src/builder/builder.ts'
import { partialArguments } from '../../src/builder/partial-json.ts'
import { replayBuilderEvents } from '../../src/builder/step.ts'
import { type BuilderEvent, type BuilderInput } from '../../src/builder/types.ts'
import { isToolCall } from '../../src/message/part-make.ts'

type StreamEvent = {
  readonly type: string
  readonly index?: number
  readonly message?: { readonly id: string; readonly model: string }
  readonly content_block?: { readonly type: string; readonly id?: string; readonly name?: string }
  readonly delta?: Record<string, string | null>
  readonly usage?: { readonly output_tokens: number }
}

const recorded = JSON.parse(readFileSync(new URL('../fixtures/anthropic-stream.json', import.meta.url), 'utf8')) as ReadonlyArray<StreamEvent>

/** The smallest stream-to-inputs mapping there is: block index → tool call id. */
const toInputs = (events: ReadonlyArray<StreamEvent>): ReadonlyArray<BuilderInput> => {
  const ids = new Map<number, string>()
  let usage: number | undefined
  return events.flatMap((e): ReadonlyArray<BuilderInput> => {
    const d = e.delta ?? {}
    switch (e.type) {
      case 'message_start':
        return [{ type: 'startAssistant', id: e.message?.id ?? '', model: e.message?.model ?? '', provider: 'anthropic' }]
      case 'content_block_start':
        if (e.content_block?.type !== 'tool_use') return []
        ids.set(e.index ?? -1, e.content_block.id ?? '')
        return [{ type: 'addToolCall', id: e.content_block.id ?? '', name: e.content_block.name ?? '' }]
      case 'content_block_delta':
        if (d['type'] === 'thinking_delta') return [{ type: 'appendThinking', text: d['thinking'] ?? '' }]
        if (d['type'] === 'signature_delta') return [{ type: 'setThinkingSignature', signature: d['signature'] ?? '' }]
        if (d['type'] === 'text_delta') return [{ type: 'appendContent', text: d['text'] ?? '' }]
        if (d['type'] === 'input_json_delta') return [{ type: 'appendToolCallArguments', id: ids.get(e.index ?? -1) ?? '', fragment: d['partial_json'] ?? '' }]
        return []
      case 'message_delta':
        usage = e.usage?.output_tokens
        return [{ type: 'finish', reason: d['stop_reason'] ?? 'end_turn' }]
      case 'message_stop':
        return [{ type: 'finalizeAssistant', ...(usage === undefined ? {} : { tokens: { total: usage } }) }]
      default:
        return []
    }
  })
}

const READ = 'toolu_01T1x1fJ34qAmk2tNTrN7Up6'
const GREP = 'toolu_01Ab2cD3eF4gH5iJ6kL7mN8o'

describe('a builder fed a recorded provider stream', () => {
  const events: BuilderEvent[] = []
  const b = createBuilder({ systemPrompt: 'You are a coding agent.', idPrefix: 'm', clock: () => '2026-01-01T00:00:00.000Z', sink: (e) => events.push(e) })
  const start = b.history()
  b.addUserMessage({ text: 'Which port does the app use?' })
  const shown: unknown[] = []
  for (const input of toInputs(recorded)) {
    b.dispatch(input)
    // what a UI would show while the arguments stream
    const call = b.state().current?.parts.find((p) => isToolCall(p) && p.id === READ)
    if (input.type === 'appendToolCallArguments' && input.id === READ && call !== undefined && isToolCall(call)) shown.push(partialArguments(call))
  }

  it('produces the expected history', () => {
    const assistant = b.history()[2]
    expect(b.history().map((m) => m.role)).toEqual(['system', 'user', 'assistant'])
    expect(assistant).toMatchObject({ id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'claude-sonnet-4-5', provider: 'anthropic' })
    expect(assistant?.parts).toEqual([
      {
        type: 'reasoning',
        text: 'The user wants the config. I should read it and grep for the port.',
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      },
      { type: 'text', text: 'Let me look at the configuration.' },
      { type: 'tool_call', id: READ, name: 'read_file', arguments: '{"path": "config/app.yaml", "lines": [1, 200]}', status: 'pending' },
      { type: 'tool_call', id: GREP, name: 'grep', arguments: '{"pattern": "port\\\\s*:", "glob": "**/*.yaml"}', status: 'pending' },
      { type: 'finish', reason: 'tool_use' },
    ])
    expect(assistant?.tokens?.total).toBe(89)
  })

  it('produces the expected event sequence (empty chunks skipped)', () => {
    const seq = events.map((e) => (e.type === 'messagePartAdded' || e.type === 'messagePartUpdated' ? `${e.type}:${e.index}` : e.type))
    expect(seq).toEqual([
      'messageAdded',
      'messageStarted',
      'messagePartAdded:0', // thinking
      'messagePartUpdated:0',
      'messagePartUpdated:0', // signature
      'messagePartAdded:1', // text
      'messagePartUpdated:1',
      'messagePartAdded:2', // read_file
      'messagePartUpdated:2',
      'messagePartUpdated:2',
      'messagePartUpdated:2',
      'messagePartAdded:3', // grep
      'messagePartUpdated:3',
      'messagePartUpdated:3',
      'messagePartUpdated:3',
      'messagePartAdded:4', // finish
      'messageFinalized',
    ])
    expect(events.at(-1)).toMatchObject({ type: 'messageFinalized', index: 2, text: 'Let me look at the configuration.' })
  })

  it('shows the arguments while they stream', () => {
    // the first fragment is empty: nothing to show yet
    expect(shown).toEqual([undefined, { path: 'conf' }, { path: 'config/app.yaml', lines: [1] }, { path: 'config/app.yaml', lines: [1, 200] }])
  })

  it('then runs the tools: results land right after the assistant message, in completion order', () => {
    b.startToolCall(GREP)
    b.startToolCall(READ)
    b.completeToolCall({ id: GREP, result: 'config/app.yaml:3: port: 8080' })
    b.completeToolCall({ id: READ, result: '', error: 'permission denied' })
    b.addUserMessage({ text: 'thanks' })
    const h = b.history()
    expect(h.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user'])
    expect(h[2]?.parts.filter(isToolCall).map((c) => c.status)).toEqual(['error', 'complete'])
    expect(h[4]?.parts[0]).toMatchObject({ toolCallId: READ, isError: true, content: 'permission denied' })
    expect(replayBuilderEvents(events)(start)).toEqual(h)
  })
})
