/**
 * The `from…` functions on what `JSON.parse` (or a careless caller) produces: values nested far
 * deeper than `JSON.stringify` can recurse, tool results nested inside tool results, a BigInt. Each
 * is a decode failure at its path, never a throw.
 */
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { fromAnthropic, fromAnthropicMessage } from '../../src/adapters/anthropic/messages-from.ts'
import { fromGemini, fromGeminiResponse } from '../../src/adapters/gemini/contents-from.ts'
import { fromOpenAIChat, fromOpenAIChatCompletion } from '../../src/adapters/openai/chat-from.ts'
import { fromOpenAIResponse, fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { anthropicStream } from '../../src/adapters/anthropic/stream.ts'
import { geminiStream } from '../../src/adapters/gemini/stream.ts'
import { openAIResponsesStream } from '../../src/adapters/openai/responses-stream.ts'
import { openAIChatStream } from '../../src/adapters/openai/chat-stream.ts'
import { MAX_JSON_DEPTH } from '../../src/adapters/json-text.ts'
import type { DecodeFailure } from '../../src/message/failure.ts'
import { formatDecodeFailure } from '../../src/message/failure.ts'

/** `{"a":{"a":…}}` nested `n` deep, parsed from text as a server would. */
const deepObject = (n: number): unknown => JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`)
/** `[[[…]]]` nested `n` deep. */
const deepArray = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`)

const DEEP = 100_000

/** The failure of a decode that must fail without throwing, with its rendering checked too. */
const failure = (run: () => E.Either<DecodeFailure, unknown>): DecodeFailure => {
  const r = run()
  if (E.isRight(r)) throw new Error('expected a decode failure')
  expect(() => formatDecodeFailure(r.left)).not.toThrow()
  return r.left
}

describe('from… on hostile JSON', () => {
  it('fromAnthropic: tool input nested 100,000 deep fails at the input', () => {
    const body = { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: deepObject(DEEP) }] }] }
    const f = failure(() => fromAnthropic(body))
    expect(f[0]?.path).toMatch(/^messages\[0\]\.content\[0\]\.input(\.a)+$/)
    expect(f[0]?.expected).toBe(`JSON nested at most ${MAX_JSON_DEPTH} levels`)
  })

  it('fromAnthropic: tool results nested 10,000 deep (~400 KB) fail at the first nested result', () => {
    const n = 10_000
    const open = Array.from({ length: n }, (_, i) => `{"type":"tool_result","tool_use_id":"toolu_${i}","content":[`).join('')
    const text = `{"messages":[{"role":"user","content":[${open}{"type":"text","text":"x"}${']}'.repeat(n)}]}]}`
    expect(text.length).toBeGreaterThan(300_000)
    const f = failure(() => fromAnthropic(JSON.parse(text)))
    expect(f.map((i) => i.path)).toEqual(['messages[0].content[0].content[0].type'])
  })

  it('fromAnthropicMessage: tool input nested 100,000 deep, and a BigInt, fail at their paths', () => {
    const deep = failure(() => fromAnthropicMessage({ id: 'msg_1', content: [{ type: 'tool_use', id: 't1', name: 'x', input: { q: deepArray(DEEP) } }] }))
    expect(deep[0]?.path).toMatch(/^content\[0\]\.input\.q(\[0\])+$/)
    const big = failure(() => fromAnthropicMessage({ id: 'msg_1', content: [{ type: 'tool_use', id: 't1', name: 'x', input: { n: 10n } }] }))
    expect(big).toEqual([{ path: 'content[0].input.n', expected: 'a JSON value (not a BigInt)', actual: 10n }])
  })

  it('fromGemini and fromGeminiResponse: function call args and function response nested 100,000 deep, and a BigInt', () => {
    const args = failure(() => fromGemini({ contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: { a: deepObject(DEEP) } } }] }] }))
    expect(args[0]?.path).toMatch(/^contents\[0\]\.parts\[0\]\.functionCall\.args\.a(\.a)*$/)
    const response = failure(() => fromGemini({ contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: { v: deepArray(DEEP) } } }] }] }))
    expect(response[0]?.path).toMatch(/^contents\[0\]\.parts\[0\]\.functionResponse\.response\.v(\[0\])+$/)
    const big = failure(() => fromGemini({ contents: [{ role: 'model', parts: [{ functionCall: { name: 'f', args: { n: [1n] } } }] }] }))
    expect(big.map((i) => i.path)).toEqual(['contents[0].parts[0].functionCall.args.n[0]'])
    const reply = failure(() =>
      fromGeminiResponse({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: deepObject(DEEP) } }] } }] })
    )
    expect(reply[0]?.path).toMatch(/functionCall\.args(\.a)+$/)
  })

  it('fromModelMessages: tool-call input and json tool output nested 100,000 deep, and a BigInt', () => {
    const input = failure(() =>
      fromModelMessages({ messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: deepObject(DEEP) }] }] })
    )
    expect(input[0]?.path).toMatch(/^messages\[0\]\.content\[0\]\.input(\.a)+$/)
    const output = failure(() =>
      fromModelMessages({
        messages: [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'f', output: { type: 'json', value: deepArray(DEEP) } }] }],
      })
    )
    expect(output[0]?.path).toMatch(/^messages\[0\]\.content\[0\]\.output\.value(\[0\])+$/)
    const big = failure(() =>
      fromModelMessages({ messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: { n: 2n } }] }] })
    )
    expect(big).toEqual([{ path: 'messages[0].content[0].input.n', expected: 'a JSON value (not a BigInt)', actual: 2n }])
  })

  it('a cycle is a failure too, and a value just under the depth limit decodes', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic['self'] = cyclic
    const f = failure(() =>
      fromModelMessages({ messages: [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: cyclic }] }] })
    )
    expect(f[0]).toMatchObject({ path: 'messages[0].content[0].input.self', expected: 'JSON without cycles' })
    const shared = { k: 1 }
    const ok = fromModelMessages({
      messages: [{
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: { a: shared, b: shared, d: deepObject(MAX_JSON_DEPTH - 2) } }],
      }],
    })
    expect(E.isRight(ok)).toBe(true)
  })

  it('the OpenAI decoders carry tool arguments as text and never throw on deep values elsewhere', () => {
    const deep = deepArray(DEEP)
    for (
      const run of [
        () => fromOpenAIChat({ messages: [{ role: 'user', content: deep }] }),
        () => fromOpenAIChatCompletion({ id: 'x', choices: [{ message: { role: 'assistant', content: deep } }] }),
        () => fromOpenAIResponses({ input: [{ type: 'function_call_output', call_id: 'c', output: deep }] }),
        () => fromOpenAIResponse({ id: 'r', output: deep }),
      ]
    ) {
      expect(() => run()).not.toThrow()
      expect(E.isLeft(run())).toBe(true)
    }
  })

  it('the stream assemblers take the same values in any event without throwing', () => {
    for (const value of [deepObject(DEEP), { n: 1n }]) {
      const events = [
        { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'f', args: value } }] } }] },
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'f', input: value } },
        { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'x', call_id: 'c', name: 'f', arguments: value } },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: value } }] } }] },
      ]
      for (const make of [geminiStream, anthropicStream, openAIChatStream, openAIResponsesStream]) {
        const assembler = make()
        for (const e of events) expect(Array.isArray(assembler.push(e))).toBe(true)
        expect(Array.isArray(assembler.end())).toBe(true)
      }
    }
  })
})
