/**
 * The assembler of OpenAI Chat Completions stream chunks (see `streams.ts`).
 *
 * @module
 */
import type { LifecycleInput } from '../../builder/types.ts'
import { newId } from '../../internal/id.ts'
import { openAIChatFinish } from './chat-from.ts'
import { field, lifecycle, num, str, type StreamAssembler } from '../stream-kit.ts'

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
      const choice = Array.isArray(choices)
        ? (choices as ReadonlyArray<unknown>).find((c) => num(c, 'index') === 0 || num(c, 'index') === undefined)
        : undefined
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
