import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import { textMessage } from '../../src/message/message.ts'
import {
  fromLanguageModelPrompt,
  type LanguageModelPrompt,
  providerOfModel,
  toLanguageModelPrompt,
  toolChoiceOf,
  toolDefinitionsOf,
} from '../../src/ai-sdk/prompt.ts'
import { sampleSession } from '../../sample/session.ts'

const roundTrip = (prompt: LanguageModelPrompt): LanguageModelPrompt => {
  const ms = fromLanguageModelPrompt(prompt)
  if (E.isLeft(ms)) throw new Error(JSON.stringify(ms.left))
  expect(ms.right).toHaveLength(prompt.length)
  const back = toLanguageModelPrompt()(ms.right)
  if (E.isLeft(back)) throw new Error(JSON.stringify(back.left))
  return back.right.request
}

const bytes = new Uint8Array([137, 80, 78, 71, 1, 2, 3])

/** Every part and output variant a prompt holds, with provider options at every level. */
const everything: LanguageModelPrompt = [
  { role: 'system', content: 'You are a coding agent.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Why does the cart total drift?', providerOptions: { openai: { note: 'x' } } },
      { type: 'file', data: bytes, mediaType: 'image/png' },
      { type: 'file', data: 'aGVsbG8=', mediaType: 'text/plain', filename: 'notes.txt' },
      { type: 'file', data: new URL('https://example.com/spec.pdf'), mediaType: 'application/pdf', filename: 'spec.pdf' },
      {
        type: 'file',
        data: bytes,
        mediaType: 'image/png',
        originalUrl: 'https://example.com/shot.png',
        providerOptions: { google: { mediaResolution: 'high' } },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Rounding happens per line.', providerOptions: { anthropic: { signature: 'EqQB' } } },
      { type: 'text', text: 'Let me run the tests.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: { command: 'npm test' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'read', input: { path: 'cart.ts' }, providerOptions: { openai: { itemId: 'fc_1' } } },
      { type: 'tool-call', toolCallId: 'c3', toolName: 'grep', input: { pattern: 'round' } },
      { type: 'tool-call', toolCallId: 'c4', toolName: 'rm', input: { path: '/' } },
      { type: 'tool-call', toolCallId: 'c5', toolName: 'screenshot', input: {} },
      { type: 'tool-call', toolCallId: 'c6', toolName: 'ls', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'bash', output: { type: 'text', value: '1 failing' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'read', output: { type: 'json', value: { lines: 40, text: 'export const total = …' } } },
      {
        type: 'tool-result',
        toolCallId: 'c3',
        toolName: 'grep',
        output: { type: 'error-text', value: 'no match' },
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      { type: 'tool-result', toolCallId: 'c4', toolName: 'rm', output: { type: 'execution-denied', reason: 'not allowed' } },
      {
        type: 'tool-result',
        toolCallId: 'c5',
        toolName: 'screenshot',
        output: { type: 'content', value: [{ type: 'text', text: 'the page' }, { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' }] },
      },
      { type: 'tool-result', toolCallId: 'c6', toolName: 'ls', output: { type: 'error-json', value: { code: 2 } } },
      { type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'later' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'ws1', toolName: 'web_search', input: { query: 'rounding' }, providerExecuted: true },
      { type: 'tool-result', toolCallId: 'ws1', toolName: 'web_search', output: { type: 'json', value: [{ url: 'https://example.com' }] } },
      { type: 'text', text: 'The total rounds each line.' },
    ],
    providerOptions: { openai: { store: true } },
  },
  { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
]

describe('the language-model prompt', () => {
  it('comes back as it came from a history: every part, output variant, file form and provider option', () => {
    expect(roundTrip(everything)).toEqual(everything)
  })

  it('keeps URL data a URL and base64 data text', () => {
    const back = roundTrip(everything)
    const user = back[1]
    if (user?.role !== 'user') throw new Error('expected the user message')
    expect(user.content[3]).toMatchObject({ type: 'file', data: expect.any(URL) })
    expect(user.content[2]).toMatchObject({ type: 'file', data: 'aGVsbG8=' })
    expect(user.content[1]).toMatchObject({ type: 'file', data: bytes })
  })

  it('reads a sample coding-agent session written as a prompt and gives it back, passing the AI SDK rules', () => {
    const written = toModelMessages()(sampleSession({ messages: 120, seed: 7 }))
    if (E.isLeft(written)) throw new Error('sample did not convert')
    // the prompt form of the sample: what the SDK's standardisation makes of ModelMessages
    const once = toLanguageModelPrompt()(
      E.getOrElseW(() => [])(
        fromLanguageModelPrompt(
          written.right.request.messages.map((
            m,
          ) => (m.role === 'system' || typeof m.content !== 'string' ? m : { ...m, content: [{ type: 'text', text: m.content }] })) as LanguageModelPrompt,
        ),
      ),
    )
    if (E.isLeft(once)) throw new Error('prompt did not convert')
    const prompt = once.right.request
    expect(prompt.length).toBeGreaterThan(100)
    expect(prompt.every((m) => m.role === 'system' || Array.isArray(m.content))).toBe(true)
    expect(prompt.some((m) => m.role !== 'system' && m.content.some((p) => p.type === 'image' as string))).toBe(false)
    expect(roundTrip(prompt)).toEqual(prompt)
    expect(checkRequest('ai-sdk')({ messages: prompt })).toEqual([])
  })

  it('sends a tool result rewritten since it was read as text, not its old output', () => {
    const ms = fromLanguageModelPrompt(everything)
    if (E.isLeft(ms)) throw new Error('decode')
    const pruned = ms.right.map((
      m,
    ) => (m.role === 'tool' ? { ...m, parts: m.parts.map((p) => (p.type === 'tool_result' ? { ...p, content: '[pruned]' } : p)) } : m))
    const back = toLanguageModelPrompt()(pruned)
    if (E.isLeft(back)) throw new Error('encode')
    const tool = back.right.request[3]
    if (tool?.role !== 'tool') throw new Error('expected the tool message')
    const outputs = tool.content.flatMap((p) => (p.type === 'tool-result' ? [p.output] : []))
    expect(outputs).toEqual([
      { type: 'text', value: '[pruned]' },
      { type: 'text', value: '[pruned]' },
      { type: 'error-text', value: '[pruned]' },
      { type: 'error-text', value: '[pruned]' },
      { type: 'text', value: '[pruned]' },
      { type: 'error-text', value: '[pruned]' },
    ])
  })

  it('writes a history built elsewhere in the prompt form: arrays of content, images as files', () => {
    const back = toLanguageModelPrompt()([textMessage('system', 'S'), {
      ...textMessage('user', 'look'),
      parts: [{ type: 'text', text: 'look' }, { type: 'image', data: bytes, mediaType: 'image/png' }],
    }, textMessage('assistant', 'ok')])
    if (E.isLeft(back)) throw new Error('encode')
    expect(back.right.request).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'file', data: bytes, mediaType: 'image/png' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    ])
  })

  it('reports a bad prompt by path', () => {
    const untrusted: LanguageModelPrompt = JSON.parse('[{ "role": "user", "content": [{ "type": "text", "text": 3 }] }]')
    const r = fromLanguageModelPrompt(untrusted)
    expect(E.isLeft(r) && r.left[0]?.path).toBe('messages[0].content[0].text')
  })
})

describe('the call envelope', () => {
  it('reads tool definitions, provider tools and the tool choice', () => {
    expect(
      toolDefinitionsOf([
        { type: 'function', name: 'ls', description: 'Lists', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, strict: true },
        { type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search', args: { maxUses: 3 } },
      ]),
    ).toEqual([
      { type: 'function', name: 'ls', description: 'Lists', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, strict: true },
      {
        type: 'provider',
        provider: 'anthropic',
        kind: 'web_search_20250305',
        data: { type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search', args: { maxUses: 3 } },
      },
    ])
    expect(toolChoiceOf({ type: 'tool', toolName: 'ls' })).toEqual({ type: 'tool', name: 'ls' })
    expect(toolChoiceOf({ type: 'required' })).toEqual({ type: 'required' })
    expect(toolChoiceOf(undefined)).toBeUndefined()
  })

  it('infers whose counting rules apply from the model ids', () => {
    expect(providerOfModel({ provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5' })).toBe('anthropic')
    expect(providerOfModel({ provider: 'google.generative-ai', modelId: 'gemini-2.5-pro' })).toBe('google')
    expect(providerOfModel({ provider: 'amazon-bedrock', modelId: 'anthropic.claude-3-7' })).toBe('anthropic')
    expect(providerOfModel({ provider: 'openai.responses', modelId: 'gpt-5' })).toBe('openai')
    expect(providerOfModel({ provider: 'mock-provider', modelId: 'mock-model-id' })).toBe('openai')
  })
})
