/**
 * OpenAI Chat Completions, decoding: the `messages` of a chat completion request into a history
 * (`fromOpenAIChat`), and a chat completion response into an assistant message
 * (`fromOpenAIChatCompletion`). Everything is untrusted JSON: every bad field is reported by path.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'
import {
  fromDataUrl,
  fromMessage,
  replyMessage,
  optional,
  reader,
  type Reader,
  settleStatuses,
  TaggedC,
  errorText,
} from './shared.ts'

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

const TextC = t.type({ text: t.string })
const ImageUrlC = t.type({ image_url: t.type({ url: t.string }) })
const AudioC = t.type({ input_audio: t.type({ data: t.string, format: t.string }) })
const FileC = t.type({ file: t.intersection([t.type({ file_data: t.string }), t.partial({ filename: t.string })]) })
const RefusalC = t.type({ refusal: t.string })

const AUDIO_TYPES: Readonly<Record<string, string>> = { wav: 'audio/wav', mp3: 'audio/mpeg' }

/** The parts of a content array; `user` allows media, the other roles text (and refusals). */
const contentParts = (r: Reader, content: unknown, path: string, media: boolean): Part[] => {
  if (content === undefined || content === null) return []
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  const parts: Part[] = []
  ;(content as ReadonlyArray<unknown>).forEach((u, j) => {
    const at = `${path}[${j}]`
    const tag = r.read(TaggedC, u, at)?.type
    if (tag === 'text') {
      const x = r.read(TextC, u, at)
      if (x !== undefined) parts.push({ type: 'text', text: x.text })
    } else if (tag === 'refusal' && !media) {
      const x = r.read(RefusalC, u, at)
      if (x !== undefined) parts.push({ type: 'text', text: x.refusal })
    } else if (tag === 'image_url' && media) {
      const x = r.read(ImageUrlC, u, at)
      if (x === undefined) return
      const inline = fromDataUrl(x.image_url.url)
      parts.push(inline === undefined ? { type: 'image', url: x.image_url.url } : { type: 'image', data: inline.data, mediaType: inline.mediaType })
    } else if (tag === 'input_audio' && media) {
      const x = r.read(AudioC, u, at)
      const data = x === undefined ? undefined : bytesOrFail(r, x.input_audio.data, `${at}.input_audio.data`)
      if (x !== undefined && data !== undefined) parts.push({ type: 'file', data, mediaType: AUDIO_TYPES[x.input_audio.format] ?? `audio/${x.input_audio.format}` })
    } else if (tag === 'file' && media) {
      const x = r.read(FileC, u, at)
      if (x === undefined) return
      const inline = fromDataUrl(x.file.file_data)
      if (inline === undefined) return void r.fail(`${at}.file.file_data`, 'a base64 data URL', x.file.file_data)
      parts.push({ type: 'file', data: inline.data, mediaType: inline.mediaType, ...(x.file.filename === undefined ? {} : { filename: x.file.filename }) })
    } else if (tag !== undefined) {
      r.fail(`${at}.type`, media ? '"text" | "image_url" | "input_audio" | "file"' : '"text" | "refusal"', tag)
    }
  })
  return parts
}

const bytesOrFail = (r: Reader, base64: string, path: string): Uint8Array | undefined => {
  const data = fromDataUrl(`data:x;base64,${base64}`)?.data
  return data ?? r.fail(path, 'base64 string', base64)
}

/** The parts of an assistant message: reasoning (from compatible servers), text, tool calls. */
const assistantParts = (r: Reader, x: ChatMessageWire, path: string): Part[] => {
  const parts: Part[] = []
  const thinking = x.reasoning_content ?? x.reasoning
  if (typeof thinking === 'string') parts.push({ type: 'reasoning', text: thinking })
  parts.push(...contentParts(r, x.content, `${path}.content`, false))
  if (typeof x.refusal === 'string' && x.content == null) parts.push({ type: 'text', text: x.refusal })
  ;(x.tool_calls ?? []).forEach((c, j) => {
    if (c.function !== undefined) parts.push({ type: 'tool_call', id: c.id, name: c.function.name, arguments: c.function.arguments, status: 'complete' })
    else if (c.custom !== undefined) parts.push({ type: 'tool_call', id: c.id, name: c.custom.name, arguments: JSON.stringify(c.custom.input), status: 'complete' })
    else r.fail(`${path}.tool_calls[${j}].function`, 'a function call', c)
  })
  return parts
}

const RequestC = t.type({ messages: t.array(t.unknown) }, 'a chat completion request with messages')

/**
 * Decodes the `messages` of a chat completion request (`{ messages }`, as `toOpenAIChat` writes
 * them, or any request body) into a history. Assistant messages get `provider: 'openai'`; each
 * `tool` message becomes a tool message with the tool's name found from its call; a tool call's
 * status is `complete` when a result answers it, else `pending`. Every bad field is reported by path.
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
    const x = r.read(ChatMessageC, item, path)
    if (x === undefined) return
    switch (x.role) {
      case 'system':
      case 'developer':
        out.push(fromMessage({ role: 'system', parts: contentParts(r, x.content, `${path}.content`, false) }))
        return
      case 'user':
        out.push(fromMessage({ role: 'user', parts: contentParts(r, x.content, `${path}.content`, true) }))
        return
      case 'assistant': {
        const parts = assistantParts(r, x, path)
        for (const p of parts) if (p.type === 'tool_call') names.set(p.id, p.name)
        out.push(fromMessage({ role: 'assistant', parts, provider: 'openai' }))
        return
      }
      case 'tool': {
        if (x.tool_call_id === undefined) return void r.fail(`${path}.tool_call_id`, 'string', undefined)
        const content = contentParts(r, x.content, `${path}.content`, false)
          .map((p) => (p.type === 'text' ? p.text : ''))
          .join('')
        const name = names.get(x.tool_call_id)
        out.push(fromMessage({ role: 'tool', parts: [{ type: 'tool_result', toolCallId: x.tool_call_id, content, isError: false, ...(name === undefined ? {} : { name }) }] }))
        return
      }
      case 'function':
        return void r.fail(`${path}.role`, 'a role other than the deprecated "function"', x.role)
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

const ErrorC = t.type({ error: t.intersection([t.type({ message: t.string }), t.partial({ type: optional(t.string), code: optional(t.union([t.string, t.number])) })]) })

/**
 * Decodes a chat completion response (its first choice) into one assistant message: its id, model,
 * `provider: 'openai'`, parts, a finish part (`stop` → `end_turn`, `tool_calls` → `tool_use`,
 * `length` → `max_tokens`, others as they are) and its output tokens. An error body
 * (`{ error: { message, type } }`) becomes an assistant message with `error` set and no parts.
 * Tool calls are `pending`: nothing has run them yet.
 *
 * @example
 * import { fromOpenAIChatCompletion } from 'chatfold'
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
  return r.done(
    replyMessage({
      provider: 'openai',
      parts: message === undefined ? [] : assistantParts(r, message, 'choices[0].message'),
      id: x.id,
      model: x.model,
      finish: typeof choice.finish_reason === 'string' ? openAIChatFinish(choice.finish_reason) : undefined,
      output: x.usage?.completion_tokens,
      thinking: x.usage?.completion_tokens_details?.reasoning_tokens,
    }),
  )
}
