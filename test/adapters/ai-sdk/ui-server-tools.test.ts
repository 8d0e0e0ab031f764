/**
 * A provider's server tools in AI SDK UI messages: each is a `dynamic-tool` part the provider ran
 * (`providerExecuted: true`), its input and output in the AI SDK's place for them, and comes back
 * through `fromUIMessages` as the very blocks it came as.
 */
import { describe, expect, it } from 'vitest'
import { convertToModelMessages, type UIMessage, validateUIMessages } from 'ai'
import { fromUIMessages } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'
import { toUIMessages } from '../../../src/adapters/ai-sdk/ui-messages.ts'
import type { Part } from '../../../src/message/part-model.ts'
import { msg, right, text } from '../support.ts'

const provider = (p: string, kind: string, data: unknown): Part => ({ type: 'provider', provider: p, kind, data })

const search = provider('anthropic', 'server_tool_use', { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'late fee' } })
const found = provider('anthropic', 'web_search_tool_result', {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_1',
  content: [{ type: 'web_search_result', url: 'https://example.org/fees', title: 'Fees', encrypted_content: 'EqAB', page_age: null }],
})
const failed = provider('anthropic', 'web_fetch_tool_result', {
  type: 'web_fetch_tool_result',
  tool_use_id: 'srvtoolu_2',
  content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_accessible' },
})
const fetch = provider('anthropic', 'server_tool_use', {
  type: 'server_tool_use',
  id: 'srvtoolu_2',
  name: 'web_fetch',
  input: { url: 'https://example.org/x' },
})
const code = provider('openai', 'code_interpreter_call', {
  type: 'code_interpreter_call',
  id: 'ci_1',
  status: 'completed',
  code: 'print(1 + 1)',
  container_id: 'cntr_1',
  outputs: [{ type: 'logs', logs: '2\n' }],
})

describe('server tools in UI messages', () => {
  const history = [
    msg('user', [text('What is a usual late fee?')]),
    msg('assistant', [text('Let me look.'), search, found, fetch, failed, text('About 1.5% a month.')], { provider: 'anthropic' }),
    msg('user', [text('And 1 + 1?')]),
    msg('assistant', [code, text('2.')], { provider: 'openai' }),
  ]
  const { request, report } = right(toUIMessages()(history))
  const parts = request.messages.flatMap((m) => m.parts)

  it('are dynamic-tool parts the provider ran, in their place, with their input and output or error', async () => {
    await validateUIMessages({ messages: request.messages as Array<UIMessage> })
    expect(request.messages[1]?.parts.map((p) => p.type)).toEqual(['step-start', 'text', 'dynamic-tool', 'dynamic-tool', 'text', 'source-url'])
    expect(parts).toContainEqual(expect.objectContaining({
      type: 'dynamic-tool',
      toolName: 'web_search',
      toolCallId: 'srvtoolu_1',
      providerExecuted: true,
      state: 'output-available',
      input: { query: 'late fee' },
      output: found.type === 'provider' ? (found.data as { content: unknown }).content : undefined,
    }))
    expect(parts).toContainEqual(expect.objectContaining({
      type: 'dynamic-tool',
      toolName: 'web_fetch',
      state: 'output-error',
      errorText: 'url_not_accessible',
    }))
    expect(parts).toContainEqual(expect.objectContaining({
      type: 'dynamic-tool',
      toolName: 'code_interpreter',
      toolCallId: 'ci_1',
      providerExecuted: true,
      input: { code: 'print(1 + 1)', container_id: 'cntr_1' },
      output: [{ type: 'logs', logs: '2\n' }],
    }))
    // nothing left out or turned into text, so nothing to note
    expect(report.notes.filter((n) => n.kind === 'provider_part_mapped' || n.kind === 'provider_part_dropped')).toEqual([])
  })

  it('come back through fromUIMessages as the blocks they came as, in their place', () => {
    const back = right(fromUIMessages({ messages: request.messages }))
    const assistant = back.filter((m) => m.role === 'assistant').map((m) => m.parts.filter((p) => p.type !== 'finish'))
    expect(assistant).toEqual([[text('Let me look.'), search, found, fetch, failed, text('About 1.5% a month.')], [code, text('2.')]])
  })

  it('written again after a round trip, give each page one source-url part, where it was', () => {
    const again = right(toUIMessages()(right(fromUIMessages({ messages: request.messages })))).request.messages
    expect(again.map((m) => m.parts)).toEqual(request.messages.map((m) => m.parts))
  })

  it('the AI SDK sends as calls the provider ran, with their results', async () => {
    const model = await convertToModelMessages(request.messages as Array<UIMessage>)
    const sent: ReadonlyArray<unknown> = model.flatMap((m): ReadonlyArray<unknown> => (typeof m.content === 'string' ? [] : m.content))
    expect(sent).toContainEqual(expect.objectContaining({ type: 'tool-call', toolCallId: 'srvtoolu_1', toolName: 'web_search', providerExecuted: true }))
    expect(sent).toContainEqual(expect.objectContaining({ type: 'tool-result', toolCallId: 'srvtoolu_1' }))
  })
})
