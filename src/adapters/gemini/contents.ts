/**
 * Google Gemini `generateContent`: a history to and from `systemInstruction` and `contents`, and a
 * `GenerateContentResponse` (or one stream chunk) into an assistant message.
 *
 * - the leading system messages become `systemInstruction`; a system message later in the history
 *   goes out as user text (noted in the report);
 * - assistant messages are `model` contents; tool calls are `functionCall` parts, tool results
 *   `functionResponse` parts of a `user` content (`{ output }`, or `{ error }` for an error result);
 *   consecutive contents of the same role are merged;
 * - reasoning goes back only to Google (and the model that produced it, when both sides name one):
 *   a thought summary is a `thought: true` text part with its `thoughtSignature`; a signature the
 *   model attached to a text or function-call part is kept as a redacted reasoning part (its text is
 *   the signature) right before that part, and goes back on it (so is a thought with no text);
 * - images and files are `inlineData` (bytes) or `fileData` (URL);
 * - what `fromGemini` kept goes back as it came: Gemini-only fields from `providerFields.google`
 *   onto the part they came with, Google provider parts (`executableCode`, `codeExecutionResult`,
 *   `toolCall`, `toolResponse`, …) verbatim in their place, a JSON function response as its
 *   object; response metadata (`groundingMetadata`, …) is no request content and is left out with
 *   a note. Other providers' parts go through their rules first (mapped or left out, noted).
 *
 * Gemini may send function calls without ids: `fromGemini` and `fromGeminiResponse` make ids up
 * (`<name>-<n>` for a history, `<responseId>-<n>` for a response) and pair each `functionResponse`
 * without an id with the earliest unanswered call of that name.
 *
 * @module
 */
import type { Part, ToolResultBlock } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { argumentsObject, type Context, convertWith, foreignReasoning, idFor, isNative, nonEmptyIds, omitPart } from '../convert.ts'
import { callNames, parseJson } from '../tool-turns.ts'
import { base64Of, imageType } from '../media.ts'
import { isObject } from '../../internal/object.ts'
import type { AdapterOptions, AdapterResult } from '../types.ts'
import { geminiRules } from './rules.ts'
import { applyRules } from '../rules-kit.ts'

// --- wire ---

/**
 * A part of a Gemini content, as `toGemini` writes it.
 *
 * @example
 * import type { GeminiPart } from 'chatfold/adapters'
 * const part: GeminiPart = { functionCall: { id: 'c1', name: 'ls', args: {} }, thoughtSignature: 'CiQB' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type GeminiPart = {
  readonly text?: string
  readonly thought?: boolean
  readonly thoughtSignature?: string
  readonly inlineData?: { readonly mimeType: string; readonly data: string; readonly [key: string]: unknown }
  readonly fileData?: { readonly fileUri: string; readonly mimeType?: string; readonly [key: string]: unknown }
  readonly functionCall?: { readonly id: string; readonly name: string; readonly args: Record<string, unknown>; readonly [key: string]: unknown }
  readonly functionResponse?: { readonly id: string; readonly name: string; readonly response: Record<string, unknown>; readonly [key: string]: unknown }
  readonly [key: string]: unknown
}

/**
 * A Gemini content: a role and its parts. Arrays are plain `Array`s so that the request passes
 * straight to the SDK.
 *
 * @example
 * import type { GeminiContent } from 'chatfold/adapters'
 * const content: GeminiContent = { role: 'user', parts: [{ text: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type GeminiContent = { readonly role: 'user' | 'model'; readonly parts: Array<GeminiPart> }

/**
 * The request fields `toGemini` produces: `contents` for `generateContent`, and the
 * `systemInstruction` (top level in REST, in `config` with the SDK), absent without system messages.
 *
 * @example
 * import type { GeminiRequest } from 'chatfold/adapters'
 * const request: GeminiRequest = { systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type GeminiRequest = {
  readonly systemInstruction?: { readonly parts: Array<GeminiPart> }
  readonly contents: Array<GeminiContent>
}

// --- to ---

const mediaPart = (context: Context, m: Message, p: Part): GeminiPart | undefined => {
  if (p.type !== 'image' && p.type !== 'file') return undefined
  const mediaType = p.type === 'image' ? imageType(p) : p.mediaType
  if (p.data !== undefined) {
    if (mediaType === undefined) return omitPart(context, m, p, 'an image of unknown type')
    return { inlineData: { mimeType: mediaType, data: base64Of(p.data) } }
  }
  if (p.url !== undefined) return { fileData: { fileUri: p.url, ...(mediaType === undefined ? {} : { mimeType: mediaType }) } }
  return undefined
}

/** Gemini-only fields `fromGemini` kept on a part, and the markers it added (not Gemini fields). */
const fieldsOf = (p: Part): Readonly<Record<string, unknown>> => {
  const all = (p as { readonly providerFields?: Readonly<Record<string, Readonly<Record<string, unknown>>>> }).providerFields
  return all?.['google'] ?? {}
}

/** A Gemini part with the Gemini-only fields of the part it came from put back (a data object's own fields into it). */
const dressed = (part: GeminiPart, fields: Readonly<Record<string, unknown>>): GeminiPart => {
  const out: Record<string, unknown> = { ...part }
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'alone' || k === 'responseJson') continue
    const own = out[k]
    out[k] = isObject(own) && isObject(v) ? { ...own, ...v } : v
  }
  return out
}

/** Provider parts `fromGeminiResponse` keeps that describe a response and are no part of a request. */
const RESPONSE_ONLY: ReadonlySet<string> = new Set(['groundingMetadata', 'urlContextMetadata', 'citationMetadata'])

/** A Google provider part as it came, or nothing (noted) when it is response metadata. */
const keptPart = (context: Context, m: Message, p: Part): GeminiPart | undefined => {
  if (p.type !== 'provider') return undefined
  if (RESPONSE_ONLY.has(p.kind) || !isObject(p.data)) return omitPart(context, m, p, `Gemini's "${p.kind}" describes a response and is not request content`)
  return p.data
}

/** Whether a part can carry a signature kept from the part before it: not a thought, not signed, not a response, not kept verbatim. */
const canCarry = (part: GeminiPart): boolean => !('functionResponse' in part) && part.thought !== true && part.thoughtSignature === undefined

const modelParts = (context: Context, m: Message): GeminiPart[] => {
  const parts: GeminiPart[] = []
  const native = isNative(context, m)
  let pending: string | undefined
  const flush = (): void => {
    if (pending !== undefined) parts.push({ text: '', thoughtSignature: pending })
    pending = undefined
  }
  const push = (part: GeminiPart): void => {
    if (pending === undefined) parts.push(part)
    else if (canCarry(part)) parts.push({ ...part, thoughtSignature: pending })
    else parts.push({ text: '', thoughtSignature: pending }, part)
    pending = undefined
  }
  for (const p of m.parts) {
    const fields = fieldsOf(p)
    if (p.type === 'reasoning') {
      if (!native) {
        for (const x of foreignReasoning(context, m, p, 'foreign')) push({ text: x.text })
      } else if (p.redacted === true && Object.keys(fields).length > 0) {
        // a signature that stood alone (marked, or with fields of its own): its own empty text part
        flush()
        parts.push(dressed({ text: '', thoughtSignature: p.text }, fields))
      } else if (p.redacted === true) {
        flush()
        pending = p.text
      } else {
        push(dressed({ text: p.text, thought: true, ...(p.signature === undefined ? {} : { thoughtSignature: p.signature }) }, fields))
      }
    } else if (p.type === 'text') push(dressed({ text: p.text }, fields))
    else if (p.type === 'tool_call') push(dressed({ functionCall: { id: idFor(context, p.id), name: p.name, args: argumentsObject(context, m, p) } }, fields))
    else if (p.type === 'image' || p.type === 'file') {
      const media = mediaPart(context, m, p)
      if (media !== undefined) push(dressed(media, fields))
    } else if (p.type === 'provider') {
      const kept = keptPart(context, m, p)
      if (kept !== undefined) {
        flush()
        parts.push(kept)
      }
    } else if (p.type !== 'finish') omitPart(context, m, p, 'not model content in Gemini')
  }
  flush()
  return parts
}

/** A function response: `{ output }` or `{ error }`, or the object a JSON response was. */
const responseOf = (p: Extract<Part, { readonly type: 'tool_result' }>, fields: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const content = typeof p.content === 'string' ? p.content : p.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
  const parsed = fields['responseJson'] === true ? parseJson(content) : undefined
  if (parsed !== undefined && isObject(parsed.value)) return { ...parsed.value }
  return p.isError ? { error: content } : { output: content }
}

/**
 * A result's images and files as a function response's `parts` (inline bytes or a file URI);
 * Gemini's own response parts go back as they came, any other provider block is left out with a note.
 */
const responseMedia = (context: Context, m: Message, blocks: ReadonlyArray<ToolResultBlock>): GeminiPart[] => {
  const out: GeminiPart[] = []
  for (const b of blocks) {
    if (b.type === 'text') continue
    if (b.type === 'provider') {
      if (b.provider === 'google' && b.kind === 'functionResponsePart' && isObject(b.data)) out.push(b.data)
      else omitPart(context, m, b, 'not function response content in Gemini')
      continue
    }
    const media = mediaPart(context, m, b)
    if (media !== undefined) out.push(media)
  }
  return out
}

const userParts = (context: Context, m: Message, names: ReadonlyMap<string, string>): GeminiPart[] => {
  const parts: GeminiPart[] = []
  for (const p of m.parts) {
    const fields = fieldsOf(p)
    if (p.type === 'text') parts.push(dressed({ text: p.text }, fields))
    else if (p.type === 'image' || p.type === 'file') {
      const media = mediaPart(context, m, p)
      if (media !== undefined) parts.push(dressed(media, fields))
    } else if (p.type === 'tool_result' && m.role === 'tool') {
      const name = p.name ?? names.get(p.toolCallId) ?? ''
      const media = typeof p.content === 'string' ? [] : responseMedia(context, m, p.content)
      const response = { id: idFor(context, p.toolCallId), name, response: responseOf(p, fields), ...(media.length === 0 ? {} : { parts: media }) }
      parts.push(dressed({ functionResponse: response }, fields))
    } else if (p.type === 'provider') {
      const kept = keptPart(context, m, p)
      if (kept !== undefined) parts.push(kept)
    } else if (p.type !== 'finish') omitPart(context, m, p, `not ${m.role} content in Gemini`)
  }
  return parts
}

const convert = (context: Context, ms: Messages): GeminiRequest => {
  const names = callNames(ms)
  const system: GeminiPart[] = []
  let leading = true
  const contents: GeminiContent[] = []
  for (const m of ms) {
    if (m.role === 'system' && leading) {
      for (const p of m.parts) {
        if (p.type === 'text') system.push(dressed({ text: p.text }, fieldsOf(p)))
        else if (p.type === 'provider') {
          const kept = keptPart(context, m, p)
          if (kept !== undefined) system.push(kept)
        } else omitPart(context, m, p, 'not system content')
      }
      continue
    }
    leading = false
    if (m.role === 'system') context.notes.push({ kind: 'system_as_user', messageId: m.id })
    const role = m.role === 'assistant' ? 'model' : 'user'
    const parts = m.role === 'assistant' ? modelParts(context, m) : userParts(context, m, names)
    if (parts.length === 0) {
      context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
      continue
    }
    const previous = contents[contents.length - 1]
    if (previous !== undefined && previous.role === role) previous.parts.push(...parts)
    else contents.push({ role, parts })
  }
  for (const c of contents) {
    if (c.role === 'user' && c.parts.some((p) => 'functionResponse' in p)) {
      const responses = c.parts.filter((p) => 'functionResponse' in p)
      const rest = c.parts.filter((p) => !('functionResponse' in p))
      c.parts.splice(0, c.parts.length, ...responses, ...rest)
    }
  }
  return system.length === 0 ? { contents } : { systemInstruction: { parts: system }, contents }
}

/**
 * Converts a history to the `contents` (and `systemInstruction`) of a Gemini `generateContent`
 * request. The history goes through `forLLM` and the tool-pair check first; the result says what
 * could not be carried.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage, toGemini } from 'chatfold'
 * const r = toGemini({ model: 'gemini-2.5-pro' })([textMessage('system', 'Be brief.'), textMessage('user', 'Hi')])
 * if (E.isRight(r)) {
 *   const { systemInstruction, contents } = r.right.request
 *   contents // [{ role: 'user', parts: [{ text: 'Hi' }] }]
 *   // await ai.models.generateContent({ model: 'gemini-2.5-pro', contents, config: { ...(systemInstruction && { systemInstruction }) } })
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toGemini = (options: AdapterOptions = {}) => (ms: Messages): AdapterResult<GeminiRequest> =>
  convertWith('gemini', options, nonEmptyIds, ms, (context, messages) => applyRules(geminiRules, convert(context, messages), context))
