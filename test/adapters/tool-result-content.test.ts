import { describe, expect, it } from 'vitest'
import { fromAnthropic } from '../../src/adapters/anthropic/messages-from.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { fromOpenAIChat } from '../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { fromGemini } from '../../src/adapters/gemini/contents-from.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { fromUIMessages } from '../../src/adapters/ai-sdk/ui-messages-from.ts'
import { toUIMessages } from '../../src/adapters/ai-sdk/ui-messages.ts'
import type { Messages } from '../../src/message/message.ts'
import type { ToolResultPart } from '../../src/message/part-model.ts'
import { right } from './support.ts'
import { anthropicShot, PNG_B64, shot, shotHistory } from '../support/tool-result-shot.ts'

const resultOf = (ms: Messages): ToolResultPart | undefined => ms.flatMap((m) => m.parts).find((p): p is ToolResultPart => p.type === 'tool_result')

describe('a tool result with an image, in each provider shape', () => {
  it('Anthropic: tool_result content blocks (text, image) read into the result and written back as they came', () => {
    const messages = [{ role: 'user', content: 'Show me the page' }, ...anthropicShot()]
    const h = right(fromAnthropic({ messages }))
    expect(resultOf(h)?.content).toEqual(shot)
    expect(right(toAnthropic()(h)).request.messages).toEqual(messages)
  })
  it('OpenAI Responses: a function_call_output list (input_text, input_image) read into the result and written back', () => {
    const input = [
      { type: 'function_call', call_id: 'call_1', name: 'screenshot', arguments: '{}' },
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [{ type: 'input_text', text: 'The page' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG_B64}`, detail: 'auto' }],
      },
    ]
    const h = right(fromOpenAIResponses({ input }))
    expect(resultOf(h)?.content).toEqual(shot)
    expect(right(toOpenAIResponses()(h)).request.input).toEqual(input)
  })
  it('Gemini: functionResponse.parts with inline data read into the result and written back', () => {
    const contents = [
      { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'screenshot', args: {} } }] },
      {
        role: 'user',
        parts: [{
          functionResponse: {
            id: 'c1',
            name: 'screenshot',
            response: { output: 'The page' },
            parts: [{ inlineData: { mimeType: 'image/png', data: PNG_B64 } }],
          },
        }],
      },
    ]
    const h = right(fromGemini({ contents }))
    expect(resultOf(h)?.content).toEqual(shot)
    expect(right(toGemini()(h)).request.contents).toEqual(contents)
  })
  it("AI SDK model messages: a tool-result's content output read into the result and written back", () => {
    const messages = [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'screenshot', input: {} }] },
      {
        role: 'tool',
        content: [{
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'screenshot',
          output: { type: 'content', value: [{ type: 'text', text: 'The page' }, { type: 'media', data: PNG_B64, mediaType: 'image/png' }] },
        }],
      },
    ]
    const h = right(fromModelMessages({ messages }))
    expect(resultOf(h)?.content).toEqual(shot)
    expect(right(toModelMessages()(h)).request.messages).toEqual(messages)
  })
  it('AI SDK UI messages: the image goes out as a content output and comes back as blocks', () => {
    const h = shotHistory()
    const ui = right(toUIMessages()(h)).request.messages
    expect(JSON.stringify(ui)).toContain(
      `"output":{"type":"content","value":[{"type":"text","text":"The page"},{"type":"media","data":"${PNG_B64}","mediaType":"image/png"}]}`,
    )
    expect(resultOf(right(fromUIMessages({ messages: ui })))?.content).toEqual(shot)
  })
  it('OpenAI Chat: a tool message takes text only, so the image is left out with a note and the text sent', () => {
    const h = shotHistory()
    const { request, report } = right(toOpenAIChat()(h))
    expect(request.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'The page' }] })
    expect(report.notes).toContainEqual(
      expect.objectContaining({ kind: 'omitted_part', part: 'image', reason: expect.stringContaining('an image in a tool result') }),
    )
    expect(right(fromOpenAIChat({ messages: request.messages })).length).toBeGreaterThan(0)
  })
  it("maps another provider's block in a result (an Anthropic search result) to text for OpenAI Responses, noted", () => {
    const h = right(fromAnthropic({
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'docs', input: {} }] },
        {
          role: 'user',
          content: [{
            type: 'tool_result',
            tool_use_id: 'c1',
            content: [{
              type: 'search_result',
              source: 'https://example.com/limits',
              title: 'Rate limits',
              content: [{ type: 'text', text: '50 requests a minute' }],
            }],
          }],
        },
      ],
    }))
    const { request, report } = right(toOpenAIResponses()(h))
    expect(request.input.at(-1)).toEqual({
      type: 'function_call_output',
      call_id: 'c1',
      output: [{ type: 'input_text', text: 'Rate limits (https://example.com/limits)\n50 requests a minute' }],
    })
    expect(report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_mapped', provider: 'anthropic', type: 'search_result' }))
  })
})
