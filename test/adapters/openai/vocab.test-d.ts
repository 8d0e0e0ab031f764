/**
 * Type-level checks, run by `tsc`: every member of the installed `openai` SDK's input vocabulary
 * (Responses input items, their content parts and the response's output items; Chat Completions
 * roles, content parts and tool calls) is named by a handler of the adapters. When the SDK gains
 * a member, the build fails here until the adapters give it a home.
 */
import type {
  ResponseFunctionCallOutputItem,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseOutputMessage,
} from 'openai/resources/responses/responses'
import type {
  ChatCompletionContentPart,
  ChatCompletionContentPartRefusal,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions'
import type {
  OPENAI_CHAT_CONTENT,
  OPENAI_CHAT_ROLES,
  OPENAI_CHAT_TOOL_CALLS,
  OPENAI_RESPONSES_CONTENT,
  OPENAI_RESPONSES_KEPT_ITEMS,
  OPENAI_RESPONSES_MAPPED_ITEMS,
} from '../../../src/adapters/openai/_vocab.ts'

type Assert<T extends true> = T
type IsNever<T> = [T] extends [never] ? true : false

/** An item's type tag; an easy input message and an item reference may leave it out (`message`, `item_reference`). */
type Tag<T> = T extends { type?: infer K } ?
    | Exclude<K, undefined | null>
    // deno-lint-ignore ban-types -- `{} extends Pick<T, 'type'>` asks whether `type` is optional
    | ({} extends Pick<T, 'type'> ? (T extends { role: unknown } ? 'message' : 'item_reference') : null extends K ? 'item_reference' : never)
  : never

type ResponsesHandled = (typeof OPENAI_RESPONSES_MAPPED_ITEMS)[number] | (typeof OPENAI_RESPONSES_KEPT_ITEMS)[number]

export type ResponsesVocabulary = [
  // every input item type has a handler
  Assert<IsNever<Exclude<Tag<ResponseInputItem>, ResponsesHandled>>>,
  // an easy message's optional type is handled as a message
  Assert<IsNever<Exclude<'message', ResponsesHandled>>>,
  // every output item of a response too
  Assert<IsNever<Exclude<ResponseOutputItem['type'], ResponsesHandled | 'function_call_output' | 'custom_tool_call_output'>>>,
  // every content part of a message, an output message, and a function output list
  Assert<
    IsNever<
      Exclude<
        ResponseInputContent['type'] | ResponseOutputMessage['content'][number]['type'] | ResponseFunctionCallOutputItem['type'],
        (typeof OPENAI_RESPONSES_CONTENT)[number]
      >
    >
  >,
  // and no handler names a type the SDK does not have
  Assert<IsNever<Exclude<ResponsesHandled, Tag<ResponseInputItem> | ResponseOutputItem['type']>>>,
]

export type ChatVocabulary = [
  Assert<IsNever<Exclude<ChatCompletionMessageParam['role'], (typeof OPENAI_CHAT_ROLES)[number]>>>,
  Assert<IsNever<Exclude<ChatCompletionContentPart['type'] | ChatCompletionContentPartRefusal['type'], (typeof OPENAI_CHAT_CONTENT)[number]>>>,
  Assert<IsNever<Exclude<ChatCompletionMessageToolCall['type'], (typeof OPENAI_CHAT_TOOL_CALLS)[number]>>>,
  Assert<IsNever<Exclude<(typeof OPENAI_CHAT_CONTENT)[number], ChatCompletionContentPart['type'] | ChatCompletionContentPartRefusal['type']>>>,
]
