/**
 * Stream assembly: each provider's streaming events, turned into the conversation builder's
 * lifecycle inputs (`startAssistant`, `appendContent`, `appendThinking`, `setThinkingSignature`,
 * `addRedactedThinking`, `addToolCall`, `appendToolCallArguments`, `addPart`, `setPartFields`,
 * `finish`, `setError`, `finalizeAssistant`), so that a streamed reply becomes a chatfold message through the builder,
 * with the builder's events.
 *
 * An assembler is made per streamed reply. `push` takes one event as the provider documents it
 * (the SDK's event object, or the parsed JSON of one server-sent event) and returns the inputs it
 * means; `end` returns what closes the reply when the stream is over (`finalizeAssistant`, with the
 * output tokens when the stream reported them), unless an event closed it already. The only state
 * kept is what the events do not repeat: which tool call an index (or item) belongs to, whether the
 * reply was opened and closed, and the latest token count. Events of types an assembler does not
 * know (pings, …) and malformed events mean nothing; nothing throws.
 *
 * Stop reasons become chatfold's: `end_turn`, `tool_use`, `max_tokens`, `content_filter`, or the
 * provider's own in lower case.
 *
 * @module
 */
import type { LifecycleInput } from '../builder/types.ts'
import { newId } from '../internal/id.ts'
import { openAIChatFinish } from './openai-chat-from.ts'
import { field, lifecycle, num, type StreamAssembler, str } from './stream-kit.ts'

export type { StreamAssembler } from './stream-kit.ts'
export { geminiStream, openAIResponsesStream } from './streams-gemini-responses.ts'
export { anthropicStream } from './streams-anthropic.ts'

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
 * import { openAIChatStream } from 'chatfold/adapters'
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
