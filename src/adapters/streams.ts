/**
 * Stream assembly: each provider's streaming events, turned into the conversation builder's
 * lifecycle inputs (`startAssistant`, `appendContent`, `appendThinking`, `setThinkingSignature`,
 * `addRedactedThinking`, `addToolCall`, `appendToolCallArguments`, `finish`, `setError`,
 * `finalizeAssistant`), so that a streamed reply becomes a chatfold message through the builder,
 * with the builder's events.
 *
 * An assembler is made per streamed reply. `push` takes one event as the provider documents it
 * (the SDK's event object, or the parsed JSON of one server-sent event) and returns the inputs it
 * means; `end` returns what closes the reply when the stream is over (`finalizeAssistant`, with the
 * output tokens when the stream reported them), unless an event closed it already. The only state
 * kept is what the events do not repeat: which tool call an index (or item) belongs to, whether the
 * reply was opened and closed, and the latest token count. Events of types an assembler does not
 * know (pings, server-tool blocks, …) and malformed events mean nothing; nothing throws.
 *
 * Stop reasons become chatfold's: `end_turn`, `tool_use`, `max_tokens`, `content_filter`, or the
 * provider's own in lower case.
 *
 * @module
 */
import * as t from 'io-ts'
import type { LifecycleInput } from '../conversation.ts'
import { newId } from '../internal/id.ts'
import { reader } from './shared.ts'
import { openAIChatFinish } from './openai-chat-from.ts'
import { field, lifecycle, num, type StreamAssembler, str } from './stream-kit.ts'

export type { StreamAssembler } from './stream-kit.ts'
export { geminiStream, openAIResponsesStream } from './streams-gemini-responses.ts'

// --- OpenAI Chat Completions ---

/**
 * An assembler for OpenAI Chat Completions stream chunks (`chat.completion.chunk`): the first chunk
 * opens the reply (its `id` and `model`), `delta.content` appends text, `delta.reasoning_content`
 * (or `delta.reasoning`, from compatible servers) appends reasoning, `delta.tool_calls` add calls
 * by `index` and append their argument fragments, `finish_reason` sets the finish part (`stop` →
 * `end_turn`, `tool_calls` → `tool_use`, `length` → `max_tokens`), a `usage` chunk records the
 * output tokens, an `error` chunk sets the message's error. `end` (after `[DONE]`) finalizes.
 *
 * @example
 * import { openAIChatStream } from 'chatfold'
 * const assembler = openAIChatStream()
 * assembler.push({ id: 'chatcmpl-1', model: 'gpt-5', object: 'chat.completion.chunk', created: 0,
 *   choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] })
 * // [{ type: 'startAssistant', provider: 'openai', id: 'chatcmpl-1', model: 'gpt-5' }, { type: 'appendContent', text: 'Hi' }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const openAIChatStream = (): StreamAssembler => {
  const life = lifecycle('openai')
  const calls = new Map<number, string>()
  return {
    push: (chunk) => {
      const error = field(chunk, 'error')
      if (error !== undefined && error !== null) return [...life.ensure(), { type: 'setError', error: str(error, 'message') ?? 'error' }]
      if (field(chunk, 'choices') === undefined) return []
      const out: LifecycleInput[] = life.start(str(chunk, 'id'), str(chunk, 'model'))
      const usage = field(chunk, 'usage')
      life.tokens(num(usage, 'completion_tokens'), num(field(usage, 'completion_tokens_details'), 'reasoning_tokens'))
      const choices = field(chunk, 'choices')
      const choice = Array.isArray(choices) ? (choices as ReadonlyArray<unknown>).find((c) => num(c, 'index') === 0 || num(c, 'index') === undefined) : undefined
      const delta = field(choice, 'delta')
      const thinking = str(delta, 'reasoning_content') ?? str(delta, 'reasoning')
      if (thinking !== undefined && thinking !== '') out.push({ type: 'appendThinking', text: thinking })
      const content = str(delta, 'content')
      if (content !== undefined && content !== '') out.push({ type: 'appendContent', text: content })
      const toolCalls = field(delta, 'tool_calls')
      if (Array.isArray(toolCalls)) {
        for (const c of toolCalls as ReadonlyArray<unknown>) {
          const index = num(c, 'index') ?? 0
          const fn = field(c, 'function')
          const args = str(fn, 'arguments')
          const known = calls.get(index)
          if (known === undefined) {
            const id = str(c, 'id') ?? `call_${newId()}`
            calls.set(index, id)
            out.push({ type: 'addToolCall', id, name: str(fn, 'name') ?? '', ...(args === undefined ? {} : { arguments: args }) })
          } else if (args !== undefined && args !== '') {
            out.push({ type: 'appendToolCallArguments', id: known, fragment: args })
          }
        }
      }
      const reason = str(choice, 'finish_reason')
      if (reason !== undefined) out.push({ type: 'finish', reason: openAIChatFinish(reason) })
      return out
    },
    end: () => life.finalize(),
  }
}

// --- Anthropic Messages ---

const AnthropicBlockC = t.intersection([t.type({ type: t.string }), t.partial({ id: t.string, name: t.string, text: t.string, thinking: t.string, data: t.string })])

/**
 * An assembler for Anthropic Messages stream events: `message_start` opens the reply (its `id` and
 * `model`); `content_block_start` opens a text, thinking, redacted-thinking or tool-use block;
 * `text_delta`, `thinking_delta`, `signature_delta` and `input_json_delta` fill it (a tool call
 * whose input never streams gets `{}`); `message_delta` sets the finish part (the `stop_reason` as
 * it is) and records the output tokens; `message_stop` finalizes; an `error` event sets the
 * message's error. `end` finalizes a stream that stopped without `message_stop`.
 *
 * A thinking block that streams a signature but no text becomes a reasoning part of its own (empty,
 * signed), so every signature goes back to the provider unmodified.
 *
 * @example
 * import { anthropicStream } from 'chatfold'
 * const assembler = anthropicStream()
 * assembler.push({ type: 'message_start', message: { id: 'msg_1', model: 'claude-sonnet-4-5', content: [] } })
 * assembler.push({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} } })
 * assembler.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"."}' } })
 *
 * @since 0.1.0
 * @category adapters
 */
export const anthropicStream = (): StreamAssembler => {
  const life = lifecycle('anthropic')
  const blocks = new Map<number, { readonly kind: string; readonly id?: string; filled: boolean }>()
  const decode = reader()
  return {
    push: (event) => {
      const type = str(event, 'type')
      const index = num(event, 'index') ?? 0
      switch (type) {
        case 'message_start': {
          const message = field(event, 'message')
          life.tokens(num(field(message, 'usage'), 'output_tokens'))
          return life.start(str(message, 'id'), str(message, 'model'))
        }
        case 'content_block_start': {
          const block = decode.read(AnthropicBlockC, field(event, 'content_block'), '')
          if (block === undefined) return []
          const out: LifecycleInput[] = life.ensure()
          if (block.type === 'text') {
            blocks.set(index, { kind: 'text', filled: false })
            if (block.text !== undefined && block.text !== '') out.push({ type: 'appendContent', text: block.text })
          } else if (block.type === 'thinking') {
            blocks.set(index, { kind: 'thinking', filled: block.thinking !== undefined && block.thinking !== '' })
            if (block.thinking !== undefined && block.thinking !== '') out.push({ type: 'appendThinking', text: block.thinking })
          } else if (block.type === 'redacted_thinking' && block.data !== undefined) {
            out.push({ type: 'addRedactedThinking', data: block.data })
          } else if (block.type === 'tool_use' && block.id !== undefined) {
            blocks.set(index, { kind: 'tool_use', id: block.id, filled: false })
            out.push({ type: 'addToolCall', id: block.id, name: block.name ?? '' })
          }
          return out
        }
        case 'content_block_delta': {
          const delta = field(event, 'delta')
          const block = blocks.get(index)
          switch (str(delta, 'type')) {
            case 'text_delta': {
              const text = str(delta, 'text')
              return text === undefined || text === '' ? [] : [...life.ensure(), { type: 'appendContent', text }]
            }
            case 'thinking_delta': {
              const text = str(delta, 'thinking')
              if (text === undefined || text === '') return []
              if (block !== undefined) block.filled = true
              return [...life.ensure(), { type: 'appendThinking', text }]
            }
            case 'signature_delta': {
              const signature = str(delta, 'signature')
              if (signature === undefined || !life.live) return []
              return [{ type: 'setThinkingSignature', signature }]
            }
            case 'input_json_delta': {
              const fragment = str(delta, 'partial_json')
              if (fragment === undefined || fragment === '' || block?.id === undefined || !life.live) return []
              block.filled = true
              return [{ type: 'appendToolCallArguments', id: block.id, fragment }]
            }
            default:
              return []
          }
        }
        case 'content_block_stop':
          return []
        case 'message_delta': {
          life.tokens(num(field(event, 'usage'), 'output_tokens'))
          const reason = str(field(event, 'delta'), 'stop_reason')
          return reason === undefined || !life.live ? [] : [{ type: 'finish', reason }]
        }
        case 'message_stop':
          return life.finalize()
        case 'error': {
          const error = field(event, 'error')
          const message = str(error, 'message') ?? 'error'
          const kind = str(error, 'type')
          return [...life.ensure(), { type: 'setError', error: kind === undefined ? message : `${kind}: ${message}` }]
        }
        default:
          return []
      }
    },
    end: () => life.finalize(),
  }
}
