/**
 * Anthropic Messages: a history to and from the `system` and `messages` of a Messages request, and
 * a Messages response into an assistant message.
 *
 * - the leading system messages become the top-level `system`; a system message later in the
 *   history goes out as user text (noted in the report);
 * - tool results become `tool_result` blocks (with `is_error`) in the user turn right after the
 *   `tool_use` blocks, first in that turn; consecutive turns of the same role are merged;
 * - thinking and redacted-thinking blocks go back with their signatures unmodified, but only to
 *   Anthropic (and to the model that produced them, when both sides name one); other reasoning
 *   follows `foreignReasoning`;
 * - images go out as base64 or URL sources (JPEG, PNG, GIF, WebP), PDFs and plain text as documents;
 * - tool-call ids are made valid for Anthropic (`^[a-zA-Z0-9_-]+$`), the same for a call and its result;
 * - Anthropic's provider parts go back as the blocks they hold, in their place, and a part's
 *   `providerFields.anthropic` (`cache_control`, `citations`, …) go back on its block; a tool result
 *   read with a list of blocks goes back with that list while its text is unchanged.
 *
 * A body `fromAnthropic` read comes back the same (the corpus and property tests check it), after
 * this normalisation: a content or system prompt of one plain text block is written as its string;
 * consecutive turns of one role are joined, tool results first in their user turn; a `tool_result`
 * without `content` gets `''`; an empty text is left out, and a blank one and the trailing
 * whitespace of a final assistant text go as the request rules say (the API refuses them; noted as
 * `request_fixed`); and, as the API reads a compaction block, what
 * comes before the last one is left out (`forLLM`; noted as omitted messages and parts).
 *
 * @module
 */
import type { Part, ProviderPart, TextPart, ToolResultPart } from '../../message/part-model.ts'
import type { Message, Messages } from '../../message/message.ts'
import { argumentsObject, type Context, convertWith, foreignReasoning, idFor, type IdRule, isNative, omitPart } from '../convert.ts'
import { base64Of, imageType } from '../media.ts'
import type { AdapterOptions, AdapterResult } from '../types.ts'
import type { AnthropicBlock, AnthropicImageType, AnthropicMediaBlock, AnthropicMessage, AnthropicProviderBlock, AnthropicRequest } from './_wire.ts'
import { ANTHROPIC_ID, anthropicRules } from './rules.ts'
import { applyRules } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

export type { AnthropicBlock, AnthropicImageType, AnthropicMediaBlock, AnthropicMessage, AnthropicProviderBlock, AnthropicRequest } from './_wire.ts'

// --- to ---

const anthropicIds: IdRule = {
  valid: (id) => ANTHROPIC_ID.test(id),
  fix: (id) => id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call',
}

const IMAGE_TYPES: ReadonlySet<string> = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp'])

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The part's Anthropic fields (as `fromAnthropic` kept them), without the ones the block's own fields set. */
const own = (p: Part, reserved: ReadonlyArray<string>): Readonly<Record<string, unknown>> => {
  const fields = 'providerFields' in p ? p.providerFields?.['anthropic'] : undefined
  if (fields === undefined) return {}
  return Object.fromEntries(Object.entries(fields).filter(([k]) => !reserved.includes(k)))
}

/** A user-side media block: an image, or a PDF or plain-text document. */
const mediaBlock = (context: Context, m: Message, p: Part): AnthropicMediaBlock | undefined => {
  if (p.type === 'image') {
    const extra = own(p, ['type', 'source'])
    if (p.url !== undefined) return { ...extra, type: 'image', source: { type: 'url', url: p.url } }
    const mediaType = imageType(p)
    if (p.data !== undefined && mediaType !== undefined && IMAGE_TYPES.has(mediaType)) {
      return { ...extra, type: 'image', source: { type: 'base64', media_type: mediaType as AnthropicImageType, data: base64Of(p.data) } }
    }
    return omitPart(context, m, p, 'an image that is not JPEG, PNG, GIF or WebP')
  }
  if (p.type === 'file') {
    const extra = { ...own(p, ['type', 'source']), ...(p.filename === undefined ? {} : { title: p.filename }) }
    if (p.mediaType === 'application/pdf') {
      if (p.data !== undefined) return { ...extra, type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64Of(p.data) } }
      if (p.url !== undefined) return { ...extra, type: 'document', source: { type: 'url', url: p.url } }
    }
    if (p.mediaType === 'text/plain' && p.data !== undefined) {
      try {
        return { ...extra, type: 'document', source: { type: 'text', media_type: 'text/plain', data: utf8.decode(p.data) } }
      } catch {
        return omitPart(context, m, p, 'a text file that is not UTF-8')
      }
    }
    return omitPart(context, m, p, `a ${p.mediaType} file (Anthropic takes PDF and plain-text documents)`)
  }
  return undefined
}

/** A text block, with the fields `fromAnthropic` kept (`cache_control`, `citations`, …). */
const textBlock = (p: TextPart): AnthropicBlock => ({ ...own(p, ['type', 'text']), type: 'text', text: p.text })

/** A provider part of Anthropic's, written back as the block it holds. */
const providerBlock = (context: Context, m: Message, p: ProviderPart): AnthropicProviderBlock | undefined =>
  isObject(p.data) && typeof p.data['type'] === 'string'
    ? (p.data as AnthropicProviderBlock)
    : omitPart(context, m, p, `a provider part of kind "${p.kind}" that holds no block`)

const assistantBlocks = (context: Context, m: Message): AnthropicBlock[] => {
  const blocks: AnthropicBlock[] = []
  const native = isNative(context, m)
  for (const p of m.parts) {
    switch (p.type) {
      case 'text':
        if (p.text !== '') blocks.push(textBlock(p))
        break
      case 'reasoning':
        if (native && p.redacted === true) blocks.push({ ...own(p, ['type', 'data']), type: 'redacted_thinking', data: p.text })
        else if (native && p.signature !== undefined)
          blocks.push({ ...own(p, ['type', 'thinking', 'signature']), type: 'thinking', thinking: p.text, signature: p.signature })
        else for (const x of foreignReasoning(context, m, p, native ? 'unsigned' : 'foreign')) blocks.push({ type: 'text', text: x.text })
        break
      case 'tool_call':
        blocks.push({
          ...own(p, ['type', 'id', 'name', 'input']),
          type: 'tool_use',
          id: idFor(context, p.id),
          name: p.name,
          input: argumentsObject(context, m, p),
        })
        break
      case 'provider': {
        const b = providerBlock(context, m, p)
        if (b !== undefined) blocks.push(b)
        break
      }
      case 'finish':
        break
      default:
        omitPart(context, m, p, 'not assistant content in the Messages API')
    }
  }
  return blocks
}

const userBlocks = (context: Context, m: Message): AnthropicBlock[] => {
  const blocks: AnthropicBlock[] = []
  for (const p of m.parts) {
    if (p.type === 'text') {
      if (p.text !== '') blocks.push(textBlock(p))
    } else if (p.type === 'image' || p.type === 'file') {
      const b = mediaBlock(context, m, p)
      if (b !== undefined) blocks.push(b)
    } else if (p.type === 'provider') {
      const b = providerBlock(context, m, p)
      if (b !== undefined) blocks.push(b)
    } else if (p.type !== 'finish') omitPart(context, m, p, `not ${m.role} content in the Messages API`)
  }
  return blocks
}

type ResultBlock = {
  type: 'tool_result'
  tool_use_id: string
  content: string | Array<AnthropicBlock | AnthropicMediaBlock | AnthropicProviderBlock>
  is_error?: boolean
}

/** A result's content in the Messages API: its text, or its blocks (text, image, document, Anthropic's own). */
const resultContent = (context: Context, m: Message, p: ToolResultPart): ResultBlock['content'] => {
  if (typeof p.content === 'string') return p.content
  const out: Array<AnthropicBlock | AnthropicMediaBlock | AnthropicProviderBlock> = []
  for (const b of p.content) {
    const block = b.type === 'text' ? textBlock(b) : b.type === 'provider' ? providerBlock(context, m, b) : mediaBlock(context, m, b)
    if (block !== undefined) out.push(block)
  }
  return out
}

/**
 * The content blocks a result came with, when they still say what the part says (their text is the
 * part's content): then they go back as they came, and the media parts after the result, read from
 * them, are not added again.
 */
const keptContent = (p: ToolResultPart): Array<AnthropicProviderBlock> | undefined => {
  const content = 'providerFields' in p ? p.providerFields?.['anthropic']?.['content'] : undefined
  if (!Array.isArray(content) || !content.every((b): b is AnthropicProviderBlock => isObject(b) && typeof b['type'] === 'string')) return undefined
  const text = content.map((b) => (b.type === 'text' && typeof b['text'] === 'string' ? b['text'] : '')).join('')
  return typeof p.content === 'string' && text === p.content ? content : undefined
}

/** A tool message's results; images and documents after a result go into that result's content. */
const toolBlocks = (context: Context, m: Message): AnthropicBlock[] => {
  const blocks: AnthropicBlock[] = []
  let last: ResultBlock | undefined
  let sealed = false
  for (const p of m.parts) {
    if (p.type === 'tool_result') {
      const kept = keptContent(p)
      last = {
        ...own(p, ['type', 'tool_use_id', 'content']),
        type: 'tool_result',
        tool_use_id: idFor(context, p.toolCallId),
        content: kept ?? resultContent(context, m, p),
        ...(p.isError ? { is_error: true } : {}),
      }
      sealed = kept !== undefined
      blocks.push(last)
      continue
    }
    if (sealed && (p.type === 'image' || p.type === 'file')) continue
    const media = (p.type === 'image' || p.type === 'file') && last !== undefined ? mediaBlock(context, m, p) : undefined
    if (media !== undefined && last !== undefined) {
      last.content = typeof last.content === 'string'
        ? [...(last.content === '' ? [] : [{ type: 'text' as const, text: last.content }]), media]
        : [...last.content, media]
    } else if (media === undefined && !(p.type === 'image' || p.type === 'file')) omitPart(context, m, p, 'not tool content in the Messages API')
  }
  return blocks
}

/** Whether a block is plain text with no other field: a content or system prompt of one such block is written as its string. */
const isPlainText = (b: AnthropicBlock | undefined): b is { readonly type: 'text'; readonly text: string } =>
  b !== undefined && b.type === 'text' && Object.keys(b).every((k) => k === 'type' || k === 'text')

/** The fields of the system turn a system message was read from (`fromAnthropic`), when it was one. */
const systemTurn = (m: Message): Readonly<Record<string, unknown>> | undefined => {
  const all = m.role === 'system' ? m.metadata?.['providerFields'] : undefined
  const own = isObject(all) ? all['anthropic'] : undefined
  return isObject(own) && own['role'] === 'system' ? own : undefined
}

type SystemBlock = { readonly type: 'text'; readonly text: string; readonly [field: string]: unknown } | AnthropicProviderBlock

/** The blocks of a system turn: its text, and Anthropic's blocks (tool additions and removals). */
const systemBlocks = (context: Context, m: Message): SystemBlock[] => {
  const blocks: SystemBlock[] = []
  for (const p of m.parts) {
    if (p.type === 'text') {
      if (p.text !== '') blocks.push({ ...own(p, ['type', 'text']), type: 'text', text: p.text })
    } else if (p.type === 'provider') {
      const b = providerBlock(context, m, p)
      if (b !== undefined) blocks.push(b)
    } else omitPart(context, m, p, 'not system content')
  }
  return blocks
}

type Turn = { role: 'user' | 'assistant'; content: AnthropicBlock[] } | { role: 'system'; content: SystemBlock[]; fields: Readonly<Record<string, unknown>> }

const convert = (context: Context, ms: Messages): AnthropicRequest => {
  const system: Array<{ readonly type: 'text'; readonly text: string }> = []
  let leading = true
  const turns: Turn[] = []
  for (const m of ms) {
    let role: 'user' | 'assistant'
    let blocks: AnthropicBlock[]
    const fields = systemTurn(m)
    if (fields !== undefined) {
      leading = false
      turns.push({ role: 'system', content: systemBlocks(context, m), fields })
      continue
    }
    if (m.role === 'system' && leading) {
      for (const p of m.parts) {
        if (p.type === 'text') system.push({ ...own(p, ['type', 'text']), type: 'text', text: p.text })
        else omitPart(context, m, p, 'not system content')
      }
      continue
    }
    leading = false
    if (m.role === 'system') {
      context.notes.push({ kind: 'system_as_user', messageId: m.id })
      role = 'user'
      blocks = userBlocks(context, m)
    } else if (m.role === 'assistant') {
      role = 'assistant'
      blocks = assistantBlocks(context, m)
    } else if (m.role === 'tool') {
      role = 'user'
      blocks = toolBlocks(context, m)
    } else {
      role = 'user'
      blocks = userBlocks(context, m)
    }
    if (blocks.length === 0) {
      context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'empty' })
      continue
    }
    const previous = turns[turns.length - 1]
    if (previous !== undefined && previous.role === role) previous.content.push(...blocks)
    else turns.push({ role, content: blocks })
  }
  const messages = turns.map((turn): AnthropicMessage => {
    if (turn.role === 'system') {
      const { role: _, content: __, ...rest } = turn.fields
      const [first] = turn.content
      const content = turn.content.length === 1 && isPlainText(first) ? first.text : turn.content
      return { ...rest, role: 'system', ...(turn.content.length === 0 ? {} : { content }) }
    }
    const { role, content } = turn
    const ordered = role === 'user' ? [...content.filter((b) => b.type === 'tool_result'), ...content.filter((b) => b.type !== 'tool_result')] : content
    const only = ordered[0]
    return { role, content: ordered.length === 1 && isPlainText(only) ? only.text : ordered }
  })
  const only = system[0]
  return system.length === 0 ? { messages } : { system: system.length === 1 && isPlainText(only) ? only.text : system, messages }
}

/**
 * Converts a history to the `system` and `messages` of an Anthropic Messages request. The history
 * goes through `forLLM` and the tool-pair check first; the result says what could not be carried.
 *
 * @example
 * import * as E from 'fp-ts/Either'
 * import { textMessage, toAnthropic } from 'chatfold'
 * const r = toAnthropic({ model: 'claude-sonnet-4-5' })([textMessage('system', 'Be brief.'), textMessage('user', 'Hi')])
 * if (E.isRight(r)) {
 *   r.right.request // { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }
 *   // await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 1024, ...r.right.request })
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export const toAnthropic = (options: AdapterOptions = {}) => (ms: Messages): AdapterResult<AnthropicRequest> =>
  convertWith('anthropic', options, anthropicIds, ms, (context, messages) => applyRules(anthropicRules, convert(context, messages), context))
