/**
 * OpenAI Chat Completions, decoding: the `messages` of a chat completion request into a history
 * (`fromOpenAIChat`), and a chat completion response into an assistant message
 * (`fromOpenAIChatCompletion`). Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../../message/failure.ts'
import type { Part } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { base64Of, bytesOf, fromDataUrl, toDataUrl } from '../media.ts'
import { errorText, fromMessage, optional, type Reader, reader, replyMessage, settleStatuses, TaggedC } from '../decode.ts'
import { unsafeJson } from '../json-text.ts'
import { keptPart, messageMetadata, OPENAI_CHAT_CONTENT, withOpenAIFields, without } from './_vocab.ts'
import { isObject } from '../../internal/object.ts'

// --- from ---

const ToolCallC = t.intersection([
  t.type({ id: t.string, type: t.string }),
  t.partial({ function: t.type({ name: t.string, arguments: t.string }), custom: t.type({ name: t.string, input: t.string }) }),
])

const ChatMessageC = t.intersection([
  t.type({ role: t.keyof({ system: null, developer: null, user: null, assistant: null, tool: null, function: null }) }),
  t.partial({
    content: optional(t.union([t.string, t.array(t.unknown)])),
    tool_calls: optional(t.array(ToolCallC)),
    tool_call_id: t.string,
    refusal: optional(t.string),
    reasoning_content: optional(t.string),
    reasoning: optional(t.string),
  }),
])

type ChatMessageWire = t.TypeOf<typeof ChatMessageC>
type Obj = Readonly<Record<string, unknown>>

const TextC = t.type({ text: t.string })
const ImageUrlC = t.type({ image_url: t.type({ url: t.string }) })
const AudioC = t.type({ input_audio: t.type({ data: t.string, format: t.string }) })
const FileC = t.type({ file: t.partial({ file_data: t.string, file_id: t.string, filename: t.string }) })
const RefusalC = t.type({ refusal: t.string })

const AUDIO_TYPES: Readonly<Record<string, string>> = { wav: 'audio/wav', mp3: 'audio/mpeg' }

const CONTENT_TYPES = OPENAI_CHAT_CONTENT.map((x) => `"${x}"`).join(' | ')

/** One media part of a user message: a built-in part with its residue, or kept whole. */
const mediaPart = (r: Reader, u: Obj, tag: string, at: string): Part | undefined => {
  if (tag === 'image_url') {
    const x = r.read(ImageUrlC, u, at)
    if (x === undefined) return undefined
    const inline = fromDataUrl(x.image_url.url)
    const fields = without(x.image_url, 'url')
    if (Object.keys(u).length > 2 || (inline !== undefined && toDataUrl(inline.mediaType, inline.data) !== x.image_url.url)) return keptPart(tag, u)
    return withOpenAIFields(
      inline === undefined ? { type: 'image', url: x.image_url.url } : { type: 'image', data: inline.data, mediaType: inline.mediaType },
      fields,
    )
  }
  if (tag === 'input_audio') {
    const x = r.read(AudioC, u, at)
    if (x === undefined) return undefined
    const data = bytesOf(x.input_audio.data)
    const mediaType = AUDIO_TYPES[x.input_audio.format]
    if (data === undefined) return r.fail(`${at}.input_audio.data`, 'base64 string', x.input_audio.data)
    if (mediaType === undefined || base64Of(data) !== x.input_audio.data || Object.keys(u).length > 2 || Object.keys(x.input_audio).length > 2)
      return keptPart(tag, u)
    return { type: 'file', data, mediaType }
  }
  const x = r.read(FileC, u, at)
  if (x === undefined) return undefined
  const inline = x.file.file_data === undefined ? undefined : fromDataUrl(x.file.file_data)
  if (inline === undefined || Object.keys(u).length > 2 || toDataUrl(inline.mediaType, inline.data) !== x.file.file_data) return keptPart(tag, u)
  const fields = without(x.file, 'file_data', 'filename')
  return withOpenAIFields({
    type: 'file',
    data: inline.data,
    mediaType: inline.mediaType,
    ...(x.file.filename === undefined ? {} : { filename: x.file.filename }),
  }, fields)
}

/**
 * The parts of a content list; `user` allows media, the other roles text (and refusals). The one
 * text of a list keeps its `type` (so that the list goes back as a list), a refusal its own.
 */
const contentParts = (r: Reader, content: unknown, path: string, media: boolean): Part[] => {
  if (content === undefined || content === null) return []
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  const parts: Part[] = []
  const list = content as ReadonlyArray<unknown>
  list.forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === undefined || !isObject(u)) return
    if (tag === 'text') {
      const x = r.read(TextC, u, at)
      // the one text of a list keeps its type, so that the list goes back as a list (not a string)
      if (x !== undefined) parts.push(withOpenAIFields({ type: 'text', text: x.text }, list.length === 1 ? without(u, 'text') : without(u, 'text', 'type')))
    } else if (tag === 'refusal' && !media) {
      const x = r.read(RefusalC, u, at)
      if (x !== undefined) parts.push(withOpenAIFields({ type: 'text', text: x.refusal }, without(u, 'refusal')))
    } else if ((tag === 'image_url' || tag === 'input_audio' || tag === 'file') && media) {
      const p = mediaPart(r, u, tag, at)
      if (p !== undefined) parts.push(p)
    } else {
      r.fail(`${at}.type`, media ? CONTENT_TYPES : '"text" | "refusal"', tag)
    }
  })
  return parts
}

/** The tool calls of an assistant message: a custom call's input becomes the arguments `{"input": …}`. */
const callParts = (r: Reader, x: ChatMessageWire, path: string): Part[] => {
  const parts: Part[] = []
  ;(x.tool_calls ?? []).forEach((c, j) => {
    const fields = without(c, 'id', 'function', 'custom')
    if (c.type === 'function' && c.function !== undefined && Object.keys(c.function).length === 2) {
      parts.push(
        withOpenAIFields(
          { type: 'tool_call', id: c.id, name: c.function.name, arguments: c.function.arguments, status: 'complete' },
          fields['type'] === 'function' && Object.keys(fields).length === 1 ? undefined : fields,
        ),
      )
    } else if (c.type === 'custom' && c.custom !== undefined && Object.keys(c.custom).length === 2) {
      parts.push(
        withOpenAIFields(
          { type: 'tool_call', id: c.id, name: c.custom.name, arguments: JSON.stringify({ input: c.custom.input }), status: 'complete' },
          fields,
        ),
      )
    } else r.fail(`${path}.tool_calls[${j}]`, 'a function or custom tool call', c)
  })
  return parts
}

/** The parts of an assistant message: reasoning (from compatible servers), text, tool calls. */
const assistantParts = (r: Reader, x: ChatMessageWire, path: string): Part[] => {
  const parts: Part[] = []
  const thinking = x.reasoning_content ?? x.reasoning
  if (typeof thinking === 'string') parts.push({ type: 'reasoning', text: thinking })
  parts.push(...contentParts(r, x.content, `${path}.content`, false))
  // a refusal without content is the reply's text; it goes back to the `refusal` field
  if (typeof x.refusal === 'string' && x.content == null) parts.push(withOpenAIFields({ type: 'text', text: x.refusal }, { refusal: 'field' }))
  parts.push(...callParts(r, x, path))
  return parts
}

/**
 * The fields of a chat message the parts do not hold (`name`, `audio`, `function_call`, a
 * `developer` role, a `refusal: null`, …): its residue, or `undefined` when it holds nothing more
 * than what `toOpenAIChat` writes by default.
 */
const messageResidue = (u: Obj, x: ChatMessageWire): Obj | undefined => {
  const refusalMoved = typeof x.refusal === 'string' && x.content == null
  // `refusal: null` is what the API sends when there is none: the normal form leaves it out
  const residue = without(
    u,
    'content',
    'tool_calls',
    'tool_call_id',
    'reasoning_content',
    'reasoning',
    ...(refusalMoved || u['refusal'] === null ? ['refusal'] : []),
  )
  const role = residue['role']
  const marks: Record<string, unknown> = {}
  // what the writer cannot tell from the parts: an assistant message without content, or content null beside text
  if (x.role === 'assistant' && !('content' in u)) marks['content'] = 'absent'
  const rest = {
    ...without(residue, ...(role === 'developer' || role === 'function' ? [] : ['role'])),
    ...(Object.keys(marks).length === 0 ? {} : { chatfold: marks }),
  }
  return Object.keys(rest).length === 0 ? undefined : rest
}

const RequestC = t.type({ messages: t.array(t.unknown) }, 'a chat completion request with messages')

/**
 * Decodes the `messages` of a chat completion request (`{ messages }`, as `toOpenAIChat` writes
 * them, or any request body) into a history. Assistant messages get `provider: 'openai'`; each
 * `tool` message becomes a tool message with the tool's name found from its call; a tool call's
 * status is `complete` when a result answers it, else `pending`. A message's other fields are kept
 * in its `metadata.providerFields.openai.message` (with `chatfold: { content: 'absent' }` for an
 * assistant message sent without `content`), a part's under its `providerFields.openai`; a custom
 * tool call's input becomes the arguments `{"input": …}`; a deprecated `function` message, and
 * content that would not come back identical, is kept whole as a provider part. Every bad field
 * is reported by path.
 *
 * @example
 * import { fromOpenAIChat } from 'chatfold'
 * fromOpenAIChat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIChat = (u: unknown): E.Either<DecodeFailure, Messages> => {
  const r = reader()
  const request = r.read(RequestC, u, '')
  if (request === undefined) return r.done([])
  const out: Message[] = []
  const names = new Map<string, string>()
  request.messages.forEach((item, i) => {
    const path = `messages[${i}]`
    // a message is compared and kept whole: one nested too deep (or cyclic) is a failure, never a throw
    const unsafe = unsafeJson(item, path)
    if (unsafe !== undefined) return void r.fail(unsafe.path, unsafe.expected, unsafe.actual)
    const x = r.read(ChatMessageC, item, path)
    if (x === undefined || !isObject(item)) return
    const meta = messageMetadata('message', messageResidue(item, x))
    switch (x.role) {
      case 'system':
      case 'developer':
        out.push(fromMessage({ role: 'system', parts: contentParts(r, x.content, `${path}.content`, false), ...meta }))
        return
      case 'user':
        out.push(fromMessage({ role: 'user', parts: contentParts(r, x.content, `${path}.content`, true), ...meta }))
        return
      case 'assistant': {
        const parts = assistantParts(r, x, path)
        for (const p of parts) if (p.type === 'tool_call') names.set(p.id, p.name)
        out.push(fromMessage({ role: 'assistant', parts, provider: 'openai', ...meta }))
        return
      }
      case 'tool': {
        if (x.tool_call_id === undefined) return void r.fail(`${path}.tool_call_id`, 'string', undefined)
        const content = contentParts(r, x.content, `${path}.content`, false)
          .map((p) => (p.type === 'text' ? p.text : ''))
          .join('')
        const name = names.get(x.tool_call_id)
        // a list of text parts goes back as the list while the text it holds is unchanged
        const list = Array.isArray(x.content) ? { content: x.content } : undefined
        const result = withOpenAIFields(
          { type: 'tool_result', toolCallId: x.tool_call_id, content, isError: false, ...(name === undefined ? {} : { name }) },
          list,
        )
        out.push(fromMessage({ role: 'tool', parts: [result], ...meta }))
        return
      }
      case 'function':
        // the deprecated function result answers a `function_call` by name: kept whole, in place
        out.push(fromMessage({ role: 'tool', parts: [keptPart('function', item)] }))
        return
    }
  })
  return r.done(settleStatuses(out))
}

/** chatfold's stop reason for a Chat Completions `finish_reason`. */
export const openAIChatFinish = (reason: string): string =>
  reason === 'stop' ? 'end_turn' : reason === 'tool_calls' || reason === 'function_call' ? 'tool_use' : reason === 'length' ? 'max_tokens' : reason

const UsageC = t.intersection([
  t.type({ completion_tokens: t.number }),
  t.partial({ completion_tokens_details: optional(t.partial({ reasoning_tokens: optional(t.number) })) }),
])

const CompletionC = t.intersection([
  t.type({ id: t.string, choices: t.array(t.intersection([t.type({ message: t.unknown }), t.partial({ finish_reason: optional(t.string) })])) }),
  t.partial({ model: t.string, usage: optional(UsageC) }),
])

const ErrorC = t.type({
  error: t.intersection([t.type({ message: t.string }), t.partial({ type: optional(t.string), code: optional(t.union([t.string, t.number])) })]),
})

/**
 * Decodes a chat completion response (its first choice) into one assistant message: its id, model,
 * `provider: 'openai'`, parts, a finish part (`stop` → `end_turn`, `tool_calls` → `tool_use`,
 * `length` → `max_tokens`, others as they are) and its output tokens. An error body
 * (`{ error: { message, type } }`) becomes an assistant message with `error` set and no parts.
 * Tool calls are `pending`: nothing has run them yet.
 *
 * @example
 * import { fromOpenAIChatCompletion } from 'chatfold/adapters'
 * fromOpenAIChatCompletion({
 *   id: 'chatcmpl-1', model: 'gpt-5', object: 'chat.completion', created: 0,
 *   choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hi!', refusal: null } }],
 * })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpenAIChatCompletion = (u: unknown): E.Either<DecodeFailure, Message> => {
  const r = reader()
  if (ErrorC.is(u)) {
    return r.done(fromMessage({ role: 'assistant', parts: [], provider: 'openai', error: errorText(u.error.type, u.error.message) }))
  }
  const x = r.read(CompletionC, u, '')
  const choice = x?.choices[0]
  if (x === undefined) return r.done(fromMessage({ role: 'assistant', parts: [] }))
  if (choice === undefined) return E.left([{ path: 'choices', expected: 'at least one choice', actual: x.choices }])
  const message = r.read(ChatMessageC, choice.message, 'choices[0].message')
  const meta = message === undefined || !isObject(choice.message) ? {} : messageMetadata('message', messageResidue(choice.message, message))
  return r.done({
    ...replyMessage({
      provider: 'openai',
      parts: message === undefined ? [] : assistantParts(r, message, 'choices[0].message'),
      id: x.id,
      model: x.model,
      finish: typeof choice.finish_reason === 'string' ? openAIChatFinish(choice.finish_reason) : undefined,
      output: x.usage?.completion_tokens,
      thinking: x.usage?.completion_tokens_details?.reasoning_tokens,
    }),
    ...meta,
  })
}
