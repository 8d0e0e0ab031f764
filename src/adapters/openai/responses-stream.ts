/**
 * The assembler of OpenAI Responses stream events (see `streams.ts`).
 *
 * @module
 */
import * as t from 'io-ts'
import type { LifecycleInput } from '../../builder/types.ts'
import { optional, reader } from '../decode.ts'
import { referenceOf } from './responses.ts'
import { streamedItemParts } from './responses-from.ts'
import { field, lifecycle, num, str, type StreamAssembler } from '../stream-kit.ts'

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
