/**
 * The OpenAI Agents SDK's history items as chatfold messages, for counting and compaction: each
 * item is written as the Responses API input item it stands for and read by `fromOpenAIResponses`;
 * an item that reader refuses is counted as its JSON text. The items themselves are stored as they
 * came: these messages are a view of them, never written back but for a compaction's summary.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { AgentInputItem } from '@openai/agents'
import type { Message, Messages } from '../message/message.ts'
import { fromOpenAIResponses } from '../adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../adapters/openai/responses.ts'
import { isObject } from '../internal/object.ts'

const textOf = (u: unknown): string => (typeof u === 'string' ? u : JSON.stringify(u) ?? '')

/** A function call's output as the Responses API's `function_call_output` carries it. */
const outputOf = (output: unknown): unknown => {
  if (typeof output === 'string') return output
  if (isObject(output) && output['type'] === 'text' && typeof output['text'] === 'string') return output['text']
  return textOf(output)
}

/**
 * The Responses API input item an Agents SDK item stands for: the SDK spells a few fields its own
 * way (`callId`, `function_call_result`, reasoning as `content`); other items pass as they are.
 *
 * @example
 * import { responsesItemOf } from './_items.ts'
 * responsesItemOf({ type: 'function_call', callId: 'c1', name: 'f', arguments: '{}' })
 * // { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }
 */
export const responsesItemOf = (item: AgentInputItem): unknown => {
  const u: Readonly<Record<string, unknown>> = item
  const type = u['type']
  if (type === 'function_call')
    return { type, call_id: u['callId'], name: u['name'], arguments: u['arguments'], ...(typeof u['id'] === 'string' ? { id: u['id'] } : {}) }
  if (type === 'function_call_result') return { type: 'function_call_output', call_id: u['callId'], output: outputOf(u['output']) }
  if (type === 'reasoning') {
    const content = Array.isArray(u['content']) ? u['content'] : []
    return {
      type,
      id: typeof u['id'] === 'string' ? u['id'] : 'rs',
      summary: content.map((c: unknown) => ({ type: 'summary_text', text: isObject(c) ? textOf(c['text']) : textOf(c) })),
    }
  }
  if ('role' in u) {
    const { providerData: _p, ...rest } = u
    return { type: 'message', ...rest }
  }
  return item
}

/** The id a message read from item `i` gets: it names the item, so a kept tail maps back to items. */
const idOf = (i: number, j: number): string => `item-${i}-${j}`

/**
 * The item index a message came from, when it came from one.
 *
 * @example
 * import { itemIndexOf } from './_items.ts'
 * itemIndexOf({ id: 'item-3-0', role: 'user', kind: 'normal', parts: [] }) // 3
 */
export const itemIndexOf = (m: Message): number | undefined => {
  const r = /^item-(\d+)-\d+$/.exec(m.id)
  return r === null ? undefined : Number(r[1])
}

/**
 * The chatfold history of the items, one or more messages per item, each message's id naming its
 * item (`item-3-0`).
 *
 * @example
 * import { historyOfItems } from './_items.ts'
 * historyOfItems([{ role: 'user', content: 'Hi' }]) // [{ id: 'item-0-0', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'Hi' }] }]
 */
export const historyOfItems = (items: ReadonlyArray<AgentInputItem>): Messages =>
  items.flatMap((item, i) => {
    const read = fromOpenAIResponses({ input: [responsesItemOf(item)] })
    const ms: Messages = E.isRight(read) ? read.right : [{ id: 'x', role: 'user', kind: 'normal', parts: [{ type: 'text', text: textOf(item) }] }]
    return ms.map((m, j) => ({ ...m, id: idOf(i, j) }))
  })

/**
 * The Agents SDK items of a compaction's summary messages: a text summary as a user message, a
 * provider's boundary (OpenAI's `compaction` item) as the item it came as.
 *
 * @example
 * import { itemsOfSummary } from './_items.ts'
 * itemsOfSummary([{ id: 's', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'Summary' }] }]) // [{ role: 'user', content: 'Summary' }]
 */
export const itemsOfSummary = (summary: Messages): ReadonlyArray<AgentInputItem> => {
  const written = toOpenAIResponses()(summary)
  if (E.isLeft(written)) throw new Error('Cannot write the compaction summary as Responses items')
  return written.right.request.input.map((item): AgentInputItem => {
    const u: Readonly<Record<string, unknown>> = item
    if (u['type'] !== 'message') return item as AgentInputItem
    const content = u['content']
    const text = typeof content === 'string'
      ? content
      : Array.isArray(content)
      ? content.map((c: unknown) => (isObject(c) ? textOf(c['text']) : '')).join('\n')
      : textOf(content)
    return u['role'] === 'assistant' ? { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] } : { role: 'user', content: text }
  })
}
