/**
 * Claude Code session records, one at a time: decoding a record into an entry, its content blocks
 * into chatfold parts, what injected a user record's text, and an assistant record's usage.
 * Private to the Claude Code reader (`claude-code.ts`).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { MessageUsage } from '../tokens/recorded-usage.ts'
import { type DecodeFailure, decodeIssue } from '../message/failure.ts'
import type { Part, ToolResultBlock, ToolResultContent } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'

type Rec = Readonly<Record<string, unknown>>

/**
 * Who put a user record's text there when the user did not type it (see the table in
 * `claude-code.ts`).
 *
 * @example
 * import type { ClaudeCodeOrigin } from 'chatfold/sessions'
 * import type { Message } from 'chatfold/message'
 * const originOf = (m: Message): ClaudeCodeOrigin | undefined => m.metadata?.['origin'] as ClaudeCodeOrigin | undefined
 *
 * @since 0.1.0
 * @category adapters
 */
export type ClaudeCodeOrigin = 'task-notification' | 'local-command' | 'slash-command' | 'interrupt' | 'system-reminder' | 'attachment' | 'meta'

/** One decoded record: the fields the reader uses, and the record itself. */
export type Entry = {
  /** Position among the records read (0-based), and how a failure names it (`line 12`). */
  readonly index: number
  readonly where: string
  readonly type: string
  readonly subtype: string | undefined
  readonly uuid: string | undefined
  readonly parent: string | undefined
  readonly logicalParent: string | undefined
  readonly sidechain: boolean
  readonly agentId: string | undefined
  readonly meta: boolean
  readonly compactSummary: boolean
  /** An `attachment` record read as a user message: the attachment's fields other than its text. */
  readonly attachment: Rec | undefined
  readonly timestamp: string | undefined
  /** The message's content as blocks (a string content is one text block); empty for other records. */
  readonly blocks: ReadonlyArray<Rec>
  readonly message: Rec | undefined
  readonly record: Rec
}

const str = (u: unknown): string | undefined => (typeof u === 'string' ? u : undefined)
const num = (u: unknown): number | undefined => (typeof u === 'number' && Number.isFinite(u) ? u : undefined)

/** Whether an entry is a conversation message (a `user` or `assistant` record). */
export const isMessageEntry = (e: Entry): boolean => e.type === 'user' || e.type === 'assistant'

/** Whether a user entry holds tool results and nothing else. */
export const isResultOnly = (e: Entry): boolean => e.type === 'user' && e.blocks.length > 0 && e.blocks.every((b) => b['type'] === 'tool_result')

/** The fields of an attachment that hold the text it put into the prompt, in the order tried. */
const ATTACHMENT_TEXT = ['content', 'snippet', 'prompt', 'text'] as const

const textOfValue = (u: unknown): string | undefined => {
  if (typeof u === 'string') return u
  if (!Array.isArray(u)) return undefined
  const ts = u.flatMap((x: unknown) => (typeof x === 'string' ? [x] : isObject(x) && typeof x['text'] === 'string' ? [x['text']] : []))
  return ts.length === 0 ? undefined : ts.join('\n')
}

/** The text an attachment put into the prompt and the field holding it, or undefined when it holds none (a hook's success, a model change). */
export const attachmentText = (a: Rec): { readonly text: string; readonly field: string } | undefined => {
  for (const field of ATTACHMENT_TEXT) {
    const text = textOfValue(a[field])
    if (text !== undefined && text.trim() !== '')
      return { text: field === 'snippet' && typeof a['filename'] === 'string' ? `${a['filename']}:\n${text}` : text, field }
  }
  return undefined
}

/** Decodes one parsed record. Left: a record that is not an object with a type, or a message record without a usable message. */
export const decodeEntry = (u: unknown, index: number, where: string): E.Either<DecodeFailure, Entry> => {
  if (!isObject(u) || typeof u['type'] !== 'string') return E.left(decodeIssue(`${where}.type`, 'a record type', isObject(u) ? u['type'] : u))
  let type = u['type']
  let blocks: ReadonlyArray<Rec> = []
  let message: Rec | undefined
  // a prompt the user typed while a reply was running, kept as an attachment: it reads as the user record it stands for
  const a = u['attachment']
  let attachment: Rec | undefined
  if (type === 'attachment' && isObject(a) && a['type'] === 'queued_command' && (a['commandMode'] === undefined || a['commandMode'] === 'prompt')) {
    const p = a['prompt']
    blocks = typeof p === 'string' ? [{ type: 'text', text: p }] : Array.isArray(p) ? p.filter(isObject) : []
    if (blocks.length > 0) type = 'user'
  } else if (type === 'attachment' && isObject(a)) {
    // context Claude Code put into the prompt (hook output, a file the user edited, memory, a
    // queued task notification): its text reads as an injected user message, the rest as metadata
    const read = attachmentText(a)
    if (read !== undefined) {
      blocks = [{ type: 'text', text: read.text }]
      attachment = Object.fromEntries(Object.entries(a).filter(([k]) => k !== read.field))
      type = 'user'
    }
  }
  if (u['type'] === 'user' || u['type'] === 'assistant') {
    const m = u['message']
    if (!isObject(m)) return E.left(decodeIssue(`${where}.message`, 'an object', m))
    const c = m['content']
    if (typeof c === 'string') blocks = [{ type: 'text', text: c }]
    // a bare string among the blocks is text, as a string content is
    else if (Array.isArray(c)) blocks = c.flatMap((b: unknown) => (typeof b === 'string' ? [{ type: 'text', text: b }] : isObject(b) ? [b] : []))
    else return E.left(decodeIssue(`${where}.message.content`, 'a string or an array of blocks', c))
    message = m
  }
  return E.right({
    index,
    where,
    type,
    subtype: str(u['subtype']),
    uuid: str(u['uuid']),
    parent: str(u['parentUuid']),
    logicalParent: str(u['logicalParentUuid']),
    sidechain: u['isSidechain'] === true,
    agentId: str(u['agentId']),
    meta: u['isMeta'] === true,
    compactSummary: u['isCompactSummary'] === true,
    attachment,
    timestamp: str(u['timestamp']),
    blocks,
    message,
    record: u,
  })
}

/** A record's timestamp as ISO-8601 UTC, when it has a valid one. */
export const createdAtOf = (e: Entry): { readonly createdAt?: string } =>
  e.timestamp !== undefined && !Number.isNaN(Date.parse(e.timestamp)) ? { createdAt: new Date(e.timestamp).toISOString() } : {}

const bytes = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))

/** An `image` block as an image part (base64 bytes or a URL). */
export const imagePart = (b: Rec): Part | undefined => {
  const src = b['source']
  if (!isObject(src)) return undefined
  if (src['type'] === 'base64' && typeof src['data'] === 'string') {
    const mediaType = str(src['media_type'])
    return { type: 'image', data: bytes(src['data']), ...(mediaType === undefined ? {} : { mediaType }) }
  }
  if (src['type'] === 'url' && typeof src['url'] === 'string') return { type: 'image', url: src['url'] }
  return undefined
}

/**
 * A tool result's content as Claude Code wrote it: its text, or when it holds an image (a Read of a
 * PNG, an MCP screenshot) its blocks, text and images in order. An image whose source cannot be
 * read stays the text `[image]`.
 */
export const resultContent = (c: unknown): ToolResultContent => {
  if (!Array.isArray(c) || !c.some((b) => isObject(b) && b['type'] === 'image')) return resultText(c)
  const blocks: ToolResultBlock[] = []
  for (const b of c) {
    if (!isObject(b)) continue
    if (b['type'] === 'text' && typeof b['text'] === 'string') blocks.push({ type: 'text', text: b['text'] })
    else if (b['type'] === 'image') {
      const image = imagePart(b)
      blocks.push(image?.type === 'image' ? image : { type: 'text', text: '[image]' })
    }
  }
  return blocks
}

/** A tool result's content as text: text blocks joined, an image as `[image]`. */
export const resultText = (c: unknown): string => {
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return c === undefined || c === null ? '' : JSON.stringify(c)
  return c
    .map((
      b: unknown,
    ) => (isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : isObject(b) && b['type'] === 'image' ? '[image]' : ''))
    .filter((s) => s !== '')
    .join('\n')
}

/**
 * An assistant block as a part: text (whitespace-only text, which Claude Code writes before a
 * thinking block and no provider accepts, is left out), thinking with its signature, redacted
 * thinking, a tool call, an image. Undefined for a block the reader does not carry.
 */
export const assistantPart = (b: Rec, fallbackId: string): Part | undefined => {
  switch (b['type']) {
    case 'text':
      return typeof b['text'] === 'string' && b['text'].trim() !== '' ? { type: 'text', text: b['text'] } : undefined
    case 'thinking': {
      const signature = str(b['signature'])
      return { type: 'reasoning', text: str(b['thinking']) ?? '', ...(signature === undefined || signature === '' ? {} : { signature }) }
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', signature: str(b['data']) ?? '', redacted: true }
    case 'tool_use':
      return {
        type: 'tool_call',
        id: str(b['id']) ?? fallbackId,
        name: str(b['name']) ?? 'tool',
        arguments: JSON.stringify(b['input'] ?? {}),
        status: 'complete',
      }
    case 'image':
      return imagePart(b)
    default:
      return undefined
  }
}

const INJECTED: ReadonlyArray<readonly [RegExp, ClaudeCodeOrigin]> = [
  [/^<task-notification>/, 'task-notification'],
  [/^<command-(name|message|args)>/, 'slash-command'],
  [/^<(local-command-stdout|local-command-stderr|bash-input|bash-stdout|bash-stderr)>/, 'local-command'],
  [/^\[Request interrupted by user/, 'interrupt'],
  [/^<system-reminder>/, 'system-reminder'],
]

/**
 * What injected a user record's text block, or undefined when the user typed it: the record's
 * `attachment` for an attachment record, the `origin.kind` when it names a task notification, else the block's opening marker, else `isMeta`.
 */
export const originOf = (e: Entry, text: string): ClaudeCodeOrigin | undefined => {
  if (e.attachment !== undefined) return 'attachment'
  const o = e.record['origin']
  if (isObject(o) && o['kind'] === 'task-notification') return 'task-notification'
  const t = text.trimStart()
  for (const [re, origin] of INJECTED) if (re.test(t)) return origin
  if (e.meta || (isObject(o) && typeof o['kind'] === 'string' && o['kind'] !== 'human')) return 'meta'
  return undefined
}

/** An assistant record's `message.usage` as a {@link MessageUsage}. */
export const usageOf = (message: Rec | undefined): MessageUsage | undefined => {
  const u = message?.['usage']
  if (!isObject(u)) return undefined
  const input = num(u['input_tokens'])
  const output = num(u['output_tokens'])
  if (input === undefined || output === undefined) return undefined
  const cacheRead = num(u['cache_read_input_tokens'])
  const cacheWrite = num(u['cache_creation_input_tokens'])
  // the part of the writes cached for an hour, priced apart (2 × input, against 1.25 × for 5 minutes)
  const cacheWrite1h = isObject(u['cache_creation']) ? num(u['cache_creation']['ephemeral_1h_input_tokens']) : undefined
  return {
    input,
    output,
    ...(cacheRead === undefined ? {} : { cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
    ...(cacheWrite1h === undefined || cacheWrite1h === 0 ? {} : { cacheWrite1h }),
  }
}

/** The tool calls (`tool_use` blocks) of an assistant entry: id, name and the prompt a Task/Agent call gave. */
export const callsOf = (e: Entry): ReadonlyArray<{ readonly id: string; readonly name: string; readonly prompt: string | undefined }> =>
  e.type !== 'assistant'
    ? []
    : e.blocks.flatMap((b) =>
      b['type'] === 'tool_use' && typeof b['id'] === 'string'
        ? [{ id: b['id'], name: str(b['name']) ?? '', prompt: isObject(b['input']) ? str(b['input']['prompt']) : undefined }]
        : []
    )

/** Whether a tool name starts a sub-agent (`Task`, or `Agent` in later versions). */
export const isAgentTool = (name: string): boolean => name === 'Task' || name === 'Agent'
