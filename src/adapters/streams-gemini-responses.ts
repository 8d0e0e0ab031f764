/**
 * Stream assembly for Gemini (`streamGenerateContent` chunks) and OpenAI Responses (typed
 * response events). See `streams.ts` for what an assembler does.
 *
 * @module
 */
import * as t from 'io-ts'
import type { LifecycleInput } from '../builder/types.ts'
import { newId } from '../internal/id.ts'
import { optional, reader } from './shared.ts'
import { referenceOf } from './openai-responses.ts'
import { decodeGeminiResponse } from './gemini-from.ts'
import { streamedItemParts } from './openai-responses-from.ts'
import { field, lifecycle, num, type StreamAssembler, str } from './stream-kit.ts'

// --- Gemini ---

/**
 * An assembler for Gemini `generateContentStream` chunks (each a `GenerateContentResponse`): the
 * first chunk opens the reply (`responseId`, `modelVersion`); thought parts append reasoning and
 * their `thoughtSignature` signs it; a signature on another part becomes a redacted reasoning part
 * before it (as `fromGeminiResponse` reads it); text parts append text; each `functionCall` is a
 * complete tool call (with a made-up id when it has none); `finishReason` sets the finish part;
 * `usageMetadata` records the output tokens; an error body or a blocked prompt sets the error. Every
 * other part (code execution and its result, server tool parts, inline images and files, grounding)
 * is added whole, as `fromGeminiResponse` reads it, and fields only Gemini knows stay on the part
 * they came with. `end` finalizes.
 *
 * @example
 * import { geminiStream } from 'chatfold/adapters'
 * const assembler = geminiStream()
 * assembler.push({ responseId: 'r1', modelVersion: 'gemini-2.5-pro', candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] } }] })
 * assembler.end() // [{ type: 'finalizeAssistant' }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const geminiStream = (): StreamAssembler => {
  const life = lifecycle('google')
  const calls = { prefix: '', count: 0 }
  return {
    push: (chunk) => {
      if (calls.prefix === '') calls.prefix = `${str(chunk, 'responseId') ?? newId()}-`
      const x = decodeGeminiResponse(reader(), chunk, calls)
      const out: LifecycleInput[] = x.error === undefined ? life.start(x.id, x.model) : [...life.ensure(), { type: 'setError', error: x.error }]
      life.tokens(x.output, x.thinking)
      for (const p of x.parts) {
        if (p.type === 'reasoning' && p.redacted === true) out.push({ type: 'addRedactedThinking', data: p.text })
        else if (p.type === 'reasoning') {
          if (p.text !== '') out.push({ type: 'appendThinking', text: p.text })
          if (p.signature !== undefined) out.push({ type: 'setThinkingSignature', signature: p.signature })
        } else if (p.type === 'text') {
          if (p.text !== '') out.push({ type: 'appendContent', text: p.text })
          const fields = p.providerFields?.['google']
          if (fields !== undefined && p.text !== '') out.push({ type: 'setPartFields', provider: 'google', fields })
        } else if (p.type === 'tool_call') {
          out.push({ type: 'addToolCall', id: p.id, name: p.name, arguments: p.arguments })
          const fields = p.providerFields?.['google']
          if (fields !== undefined) out.push({ type: 'setPartFields', provider: 'google', fields })
        }
        // what no streamed input builds (code execution, server tool parts, inline images and
        // files, grounding kept as provider parts) goes in whole, as the whole response reads it
        else if (p.type !== 'finish') out.push({ type: 'addPart', part: p })
      }
      if (x.finish !== undefined) out.push({ type: 'finish', reason: x.finish })
      return out
    },
    end: () => life.finalize(),
  }
}

// --- OpenAI Responses ---

const ItemC = t.intersection([
  t.type({ type: t.string }),
  t.partial({ id: t.string, call_id: t.string, name: t.string, arguments: t.string, encrypted_content: optional(t.string) }),
])

/**
 * An assembler for OpenAI Responses stream events: `response.created` opens the reply (its `id`
 * and `model`); `response.output_text.delta` appends text; reasoning summary deltas append
 * reasoning (summary parts apart by a blank line), and the reasoning item's `output_item.done` signs
 * it with the item's token (or, without a summary, adds it as redacted reasoning, as
 * `fromOpenAIResponse` reads it); a `function_call` item adds a call and its argument deltas fill
 * it; every other item (a custom tool call, a web search, code interpreter or image generation
 * call, …) is added whole when done, as `fromOpenAIResponse` reads it; `response.completed` and `response.incomplete` set the finish part and the output tokens and
 * finalize; `response.failed` and `error` set the message's error.
 *
 * @example
 * import { openAIResponsesStream } from 'chatfold/adapters'
 * const assembler = openAIResponsesStream()
 * assembler.push({ type: 'response.created', response: { id: 'resp_1', model: 'gpt-5', output: [] } })
 * assembler.push({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' })
 *
 * @since 0.1.0
 * @category adapters
 */
export const openAIResponsesStream = (): StreamAssembler => {
  const life = lifecycle('openai')
  const items = new Map<string, string>()
  const summaries = new Map<string, number>()
  const decode = reader()
  let calls = false
  const close = (response: unknown, reason: string): LifecycleInput[] => {
    const usage = field(response, 'usage')
    life.tokens(num(usage, 'output_tokens'), num(field(usage, 'output_tokens_details'), 'reasoning_tokens'))
    return life.live ? [{ type: 'finish', reason }, ...life.finalize()] : []
  }
  return {
    push: (event) => {
      switch (str(event, 'type')) {
        case 'response.created':
        case 'response.in_progress': {
          const response = field(event, 'response')
          return life.start(str(response, 'id'), str(response, 'model'))
        }
        case 'response.output_item.added': {
          const item = decode.read(ItemC, field(event, 'item'), '')
          if (item?.type !== 'function_call' || item.call_id === undefined) return []
          calls = true
          items.set(item.id ?? item.call_id, item.call_id)
          return [...life.ensure(), { type: 'addToolCall', id: item.call_id, name: item.name ?? '', arguments: item.arguments ?? '' }]
        }
        case 'response.function_call_arguments.delta': {
          const id = items.get(str(event, 'item_id') ?? '')
          const fragment = str(event, 'delta')
          return id === undefined || fragment === undefined || fragment === '' || !life.live ? [] : [{ type: 'appendToolCallArguments', id, fragment }]
        }
        case 'response.output_text.delta': {
          const text = str(event, 'delta')
          return text === undefined || text === '' ? [] : [...life.ensure(), { type: 'appendContent', text }]
        }
        case 'response.reasoning_summary_text.delta': {
          const text = str(event, 'delta')
          const item = str(event, 'item_id') ?? ''
          if (text === undefined || text === '') return []
          const index = num(event, 'summary_index') ?? 0
          const previous = summaries.get(item)
          summaries.set(item, index)
          const gap: LifecycleInput[] = previous !== undefined && previous !== index ? [{ type: 'appendThinking', text: '\n\n' }] : []
          return [...life.ensure(), ...gap, { type: 'appendThinking', text }]
        }
        case 'response.output_item.done': {
          const u = field(event, 'item')
          const item = decode.read(ItemC, u, '')
          if (item === undefined || !life.live || item.type === 'function_call' || item.type === 'message') return []
          if (item.type !== 'reasoning') {
            // every other item arrives whole: a custom tool call, a web search, code interpreter, … (as fromOpenAIResponse reads it)
            const parts = streamedItemParts(u)
            if (parts.some((p) => p.type === 'tool_call')) calls = true
            return parts.map((part): LifecycleInput => ({ type: 'addPart', part: part.type === 'tool_call' ? { ...part, status: 'pending' } : part }))
          }
          const token = referenceOf(item.id, item.encrypted_content)
          return summaries.has(item.id ?? '') ? [{ type: 'setThinkingSignature', signature: token }] : [{ type: 'addRedactedThinking', data: token }]
        }
        case 'response.completed':
          return close(field(event, 'response'), calls ? 'tool_use' : 'end_turn')
        case 'response.incomplete': {
          const response = field(event, 'response')
          const reason = str(field(response, 'incomplete_details'), 'reason')
          return close(response, reason === 'max_output_tokens' ? 'max_tokens' : (reason ?? 'incomplete'))
        }
        case 'response.failed': {
          const error = field(field(event, 'response'), 'error')
          const code = str(error, 'code')
          const message = str(error, 'message') ?? 'failed'
          return [...life.ensure(), { type: 'setError', error: code === undefined ? message : `${code}: ${message}` }, ...life.finalize()]
        }
        case 'error': {
          const message = str(event, 'message') ?? 'error'
          const code = str(event, 'code')
          return [...life.ensure(), { type: 'setError', error: code === undefined ? message : `${code}: ${message}` }]
        }
        default:
          return []
      }
    },
    end: () => life.finalize(),
  }
}
