import { describe, expect, it } from 'vitest'
import { fromAnthropicMessage } from '../../../src/adapters/anthropic/messages-from.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { anthropicStream } from '../../../src/adapters/anthropic/stream.ts'
import { createBuilder } from '../../../src/builder/builder.ts'
import { makeBuilderState } from '../../../src/builder/state.ts'
import { replayBuilderInputs } from '../../../src/builder/step.ts'
import { type LifecycleInput } from '../../../src/builder/types.ts'
import { right } from '../support.ts'

/**
 * A streamed reply with a compaction block, a web search (its query streamed as input JSON), a cited
 * text, an MCP call and its result, in the documented event shapes (content_block_start with the
 * block, input_json_delta, compaction_delta with the whole summary, citations_delta after the text
 * it cites, content_block_stop), and the same reply as one message.
 */
const citation = {
  type: 'web_search_result_location',
  url: 'https://example.com/tower',
  title: 'Tower',
  encrypted_index: 'Eo1',
  cited_text: 'It is 330 m tall.',
}
const results = [{ type: 'web_search_result', url: 'https://example.com/tower', title: 'Tower', encrypted_content: 'Eq1', page_age: null }]
const events = [
  {
    type: 'message_start',
    message: { id: 'msg_01S', type: 'message', role: 'assistant', model: 'claude-opus-4-6', content: [], usage: { input_tokens: 10, output_tokens: 1 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'compaction', content: null, encrypted_content: null } },
  { type: 'content_block_delta', index: 0, delta: { type: 'compaction_delta', content: 'Summary: the user asks about the tower.', encrypted_content: null } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"query": "tower' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' height"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: results } },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'The tower ' } },
  { type: 'content_block_stop', index: 3 },
  { type: 'content_block_start', index: 4, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 4, delta: { type: 'text_delta', text: 'is 330 m tall.' } },
  { type: 'content_block_delta', index: 4, delta: { type: 'citations_delta', citation } },
  { type: 'content_block_stop', index: 4 },
  { type: 'content_block_start', index: 5, content_block: { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'note', server_name: 'notes', input: {} } },
  { type: 'content_block_delta', index: 5, delta: { type: 'input_json_delta', partial_json: '{"text": "330 m"}' } },
  { type: 'content_block_stop', index: 5 },
  {
    type: 'content_block_start',
    index: 6,
    content_block: { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: false, content: [{ type: 'text', text: 'saved' }] },
  },
  { type: 'content_block_stop', index: 6 },
  {
    type: 'content_block_start',
    index: 7,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {}, caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_2' } },
  },
  { type: 'content_block_delta', index: 7, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } },
  { type: 'content_block_stop', index: 7 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 40 } },
  { type: 'message_stop' },
]
const whole = {
  id: 'msg_01S',
  type: 'message',
  role: 'assistant',
  model: 'claude-opus-4-6',
  stop_reason: 'end_turn',
  usage: { input_tokens: 10, output_tokens: 40 },
  content: [
    { type: 'compaction', content: 'Summary: the user asks about the tower.', encrypted_content: null },
    { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'tower height' } },
    { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: results },
    { type: 'text', text: 'The tower ', citations: null },
    { type: 'text', text: 'is 330 m tall.', citations: [citation] },
    { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'note', server_name: 'notes', input: { text: '330 m' } },
    { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', is_error: false, content: [{ type: 'text', text: 'saved' }] },
    { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 1 }, caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_2' } },
  ],
}

const build = (stream: ReadonlyArray<unknown>) => {
  const assembler = anthropicStream()
  const inputs: LifecycleInput[] = [...stream.flatMap((e) => assembler.push(e)), ...assembler.end()]
  return replayBuilderInputs(inputs)(makeBuilderState()).state.history[0]
}

describe('anthropicStream and the blocks only Anthropic knows', () => {
  it('builds the same parts as the whole message: provider blocks in their place, citations on their text', () => {
    const streamed = build(events)
    const read = right(fromAnthropicMessage(whole))
    expect(streamed?.parts).toEqual(read.parts)
    expect(streamed?.parts[4]).toEqual({ type: 'text', text: 'is 330 m tall.', providerFields: { anthropic: { citations: [citation] } } })
  })

  it('adds a block that never stopped before the reply closes', () => {
    const cut = [...events.slice(0, 7)]
    const streamed = build(cut)
    expect(streamed?.parts.map((p) => (p.type === 'provider' ? `${p.kind}:${JSON.stringify(p.data)}` : p.type))).toEqual([
      `compaction:${JSON.stringify({ type: 'compaction', content: 'Summary: the user asks about the tower.' })}`,
      `server_tool_use:${JSON.stringify({ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'tower height' } })}`,
    ])
  })

  it('sends the streamed reply back as the blocks it came as', () => {
    const streamed = build(events)
    if (streamed === undefined) throw new Error('no message')
    const back = right(toAnthropic({ repair: 'repair' })([streamed])).request.messages[0]
    expect(back?.content).toEqual([
      { type: 'compaction', content: 'Summary: the user asks about the tower.' },
      whole.content[1],
      {
        type: 'web_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: [{ type: 'web_search_result', url: 'https://example.com/tower', title: 'Tower', encrypted_content: 'Eq1', page_age: null }],
      },
      { type: 'text', text: 'The tower ' },
      whole.content[4],
      whole.content[5],
      whole.content[6],
      whole.content[7],
    ])
  })

  it('the builder adds a part and sets a provider’s fields on the last part, and warns when it cannot', () => {
    const b = createBuilder()
    b.startAssistant({ provider: 'anthropic' })
    b.setPartFields({ provider: 'anthropic', fields: { citations: [] } })
    b.appendContent('Hi')
    b.setPartFields({ provider: 'anthropic', fields: { citations: [citation] } })
    b.addPart({ type: 'provider', provider: 'anthropic', kind: 'container_upload', data: { type: 'container_upload', file_id: 'f1' } })
    b.finalizeAssistant()
    const warned = replayBuilderInputs([{ type: 'startAssistant' }, { type: 'setPartFields', provider: 'anthropic', fields: { citations: [] } }])(
      makeBuilderState(),
    )
    expect(warned.events.map((e) => e.type)).toEqual(['messageStarted', 'warning'])
    expect(b.history()[0]?.parts).toEqual([
      { type: 'text', text: 'Hi', providerFields: { anthropic: { citations: [citation] } } },
      { type: 'provider', provider: 'anthropic', kind: 'container_upload', data: { type: 'container_upload', file_id: 'f1' } },
    ])
  })
})
