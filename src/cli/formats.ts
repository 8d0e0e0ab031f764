/**
 * The formats the command line reads and writes, as two tables: add a format by adding an entry.
 *
 * Input: chatfold JSONL and JSON, Claude Code session files, AI SDK model messages, and OpenAI Chat,
 * OpenAI Responses, Anthropic and Gemini request bodies. Detection tries each entry in order and takes
 * the first whose `detect` accepts the document; `--from NAME` forces one.
 *
 * Output (`convert --to`): the provider request bodies, AI SDK model messages, and chatfold JSONL/JSON.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import type { Messages } from '../message.ts'
import { importJSONL, toJSON, toJSONL } from '../messages/codec.ts'
import { decodeMessages } from '../message.ts'
import {
  type AdapterError,
  type AdapterOptions,
  type AdapterReport,
  fromAnthropic,
  fromClaudeCode,
  isClaudeCodeRecord,
  readClaudeCode,
  type ClaudeCodeSession,
  fromGemini,
  fromModelMessages,
  fromOpenAIChat,
  fromOpenAIResponses,
  fromUIMessages,
  toAnthropic,
  toGemini,
  toModelMessages,
  toOpenAIChat,
  toOpenAIResponses,
  toUIMessages,
} from '../adapters/index.ts'
import { encodeBase64 } from '../internal/base64.ts'
import { isObject } from '../internal/object.ts'

// --- documents ---

/** A file's text, parsed once: one JSON value, or JSON lines (with the first record parsed). */
export type Doc =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'jsonl'; readonly text: string; readonly first: unknown; readonly head: ReadonlyArray<unknown> }

/**
 * What reading gave: the history, notes for the reader (records skipped, …), and the messages a
 * compaction recorded in the file replaced (Claude Code sessions), when there are any.
 */
export type Read = { readonly messages: Messages; readonly notes: ReadonlyArray<string>; readonly archive?: Messages }

/**
 * How to read a file, for the formats where there is a choice: every branch or only the active one,
 * sub-agent runs inline or left out, and records read from elsewhere along with the file (the
 * sub-agent transcripts of a Claude Code session).
 */
export type ReadOptions = {
  readonly branches?: 'active' | 'all'
  readonly subagents?: 'inline' | 'omit'
  readonly extraRecords?: ReadonlyArray<unknown>
}

type Rec = Readonly<Record<string, unknown>>

/** Parses a file's text: the whole as JSON, else line by line. Left: the text is neither (with the line). */
export const parseDoc = (text: string): E.Either<{ readonly line: number; readonly message: string }, Doc> => {
  const body = text.trim()
  try {
    return E.right({ kind: 'json', value: JSON.parse(body) as unknown })
  } catch (whole) {
    const lines = text.split('\n')
    const firstAt = lines.findIndex((l) => l.trim() !== '')
    if (firstAt < 0) return E.left({ line: 1, message: 'the file is empty' })
    // one line only: the whole document's error is the one to show
    if (lines.filter((l) => l.trim() !== '').length === 1) return E.left({ line: firstAt + 1, message: (whole as Error).message })
    // the first records (up to ten), for detection; a bad line among them is reported by the reader
    const head: unknown[] = []
    for (let i = firstAt; i < lines.length && head.length < 10; i++) {
      const l = (lines[i] as string).trim()
      if (l === '') continue
      try {
        head.push(JSON.parse(l) as unknown)
      } catch (e) {
        if (head.length === 0) return E.left({ line: i + 1, message: (e as Error).message })
        break
      }
    }
    return E.right({ kind: 'jsonl', text, first: head[0], head })
  }
}

const messagesOf = (u: unknown): ReadonlyArray<unknown> | undefined => (Array.isArray(u) ? u : isObject(u) && Array.isArray(u['messages']) ? u['messages'] : undefined)
const blockTypes = (u: unknown): Set<string> => {
  const types = new Set<string>()
  for (const m of messagesOf(u) ?? []) {
    if (!isObject(m)) continue
    if (Array.isArray(m['content'])) for (const b of m['content']) if (isObject(b) && typeof b['type'] === 'string') types.add(b['type'])
    if (typeof m['role'] === 'string') types.add(`role:${m['role']}`)
    if ('tool_calls' in m || 'tool_call_id' in m) types.add('openai:tools')
  }
  return types
}
const hasAny = (s: Set<string>, xs: ReadonlyArray<string>): boolean => xs.some((x) => s.has(x))
const asBody = (u: unknown): unknown => (Array.isArray(u) ? { messages: u } : u)
const plain = (r: E.Either<DecodeFailure, Messages>): E.Either<DecodeFailure, Read> => E.map((messages: Messages) => ({ messages, notes: [] }))(r)
const json = (doc: Doc): unknown => (doc.kind === 'json' ? doc.value : undefined)
const isChatfoldMessage = (u: unknown): boolean => isObject(u) && Array.isArray(u['parts']) && typeof u['role'] === 'string'
/** Part types of chatfold's own wire form (`{ type, data }`): a UI message never has one of these with a `data` object. */
const CHATFOLD_PART_TYPES = new Set(['text', 'reasoning', 'image', 'file', 'tool_call', 'tool_result', 'finish'])
/**
 * An AI SDK UI message: an id, a role and parts, no chatfold `kind`, and no part in chatfold's tagged
 * or underscored form (UI tool parts are `tool-NAME`, not `tool_call`).
 */
const isUIMessage = (u: unknown): boolean =>
  isObject(u) &&
  typeof u['id'] === 'string' &&
  typeof u['role'] === 'string' &&
  !('kind' in u) &&
  Array.isArray(u['parts']) &&
  u['parts'].every((p: unknown) => isObject(p) && typeof p['type'] === 'string' && !(CHATFOLD_PART_TYPES.has(p['type']) && isObject(p['data'])) && !['tool_call', 'tool_result', 'finish'].includes(p['type']))

// --- input formats ---

/** A Claude Code document read with the options, the extra records (sub-agent files) after the file's own. */
const readClaudeCodeDoc = (doc: Doc, o: ReadOptions): E.Either<DecodeFailure, ClaudeCodeSession> => {
  const options = { ...(o.branches === undefined ? {} : { branches: o.branches }), ...(o.subagents === undefined ? {} : { subagents: o.subagents }) }
  const text = doc.kind === 'jsonl' ? doc.text : JSON.stringify(doc.value)
  if (o.extraRecords === undefined || o.extraRecords.length === 0) return fromClaudeCode(options)(text)
  const records: unknown[] = []
  const lineNumbers: number[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const l = (lines[i] as string).trim()
    if (l === '') continue
    try {
      records.push(JSON.parse(l) as unknown)
    } catch (e) {
      return E.left([{ path: `line ${i + 1}`, expected: 'a JSON record', actual: (e as Error).message }])
    }
    lineNumbers.push(i + 1)
  }
  return readClaudeCode({ ...options, lineNumbers })([...records, ...o.extraRecords])
}

/**
 * An input format: its name for `--from`, a one-line description, whether a document is in it,
 * and how to read it.
 */
export type InputFormat = {
  readonly name: string
  readonly description: string
  readonly detect: (doc: Doc) => boolean
  readonly read: (doc: Doc, options?: ReadOptions) => E.Either<DecodeFailure, Read>
}

const needJSON =
  (f: (u: unknown) => E.Either<DecodeFailure, Messages>) =>
  (doc: Doc): E.Either<DecodeFailure, Read> =>
    doc.kind === 'json' ? plain(f(asBody(doc.value))) : E.left([{ path: 'line 1', expected: 'one JSON document', actual: 'JSON lines' }])

/** Every input format, in detection order. */
export const INPUT_FORMATS: ReadonlyArray<InputFormat> = [
  {
    name: 'ui-messages',
    description: 'AI SDK UI messages ({ messages } or an array: what useChat holds and apps persist)',
    detect: (doc) => {
      const ms = messagesOf(json(doc))
      return ms !== undefined && ms.length > 0 && ms.every(isUIMessage)
    },
    read: needJSON(fromUIMessages),
  },
  {
    name: 'chatfold-jsonl',
    description: 'chatfold JSONL: one message a line (toJSONL)',
    detect: (doc) => doc.kind === 'jsonl' ? isChatfoldMessage(doc.first) : isChatfoldMessage(doc.value),
    read: (doc) => plain(importJSONL(doc.kind === 'jsonl' ? doc.text : JSON.stringify(doc.value))),
  },
  {
    name: 'claude-code',
    description: 'Claude Code session file (~/.claude/projects/…/SESSION.jsonl; its sub-agent transcripts beside it are read too)',
    // a session file may open with records that are not messages (a file-history snapshot): look further
    detect: (doc) => (doc.kind === 'jsonl' ? doc.head.some(isClaudeCodeRecord) && !isChatfoldMessage(doc.first) : isClaudeCodeRecord(doc.value)),
    read: (doc, o = {}) =>
      E.map((s: ClaudeCodeSession): Read => ({
        messages: s.messages,
        ...(s.archive.length === 0 ? {} : { archive: s.archive }),
        notes: [
          ...s.notes,
          ...(Object.keys(s.skipped).length === 0 ? [] : [`skipped records not part of the conversation: ${Object.entries(s.skipped).map(([type, n]) => `${n} ${type}`).join(', ')}`]),
        ],
      }))(readClaudeCodeDoc(doc, o)),
  },
  {
    name: 'chatfold-json',
    description: 'chatfold JSON: an array of messages (toJSON)',
    detect: (doc) => Array.isArray(json(doc)) && ((json(doc) as unknown[]).length === 0 || isChatfoldMessage((json(doc) as unknown[])[0])),
    read: (doc) => (doc.kind === 'json' ? plain(decodeMessages(doc.value)) : E.left([{ path: 'line 1', expected: 'a JSON array', actual: 'JSON lines' }])),
  },
  {
    name: 'openai-responses',
    description: 'OpenAI Responses request body ({ input, instructions })',
    detect: (doc) => isObject(json(doc)) && 'input' in (json(doc) as Rec),
    read: needJSON(fromOpenAIResponses),
  },
  {
    name: 'gemini',
    description: 'Gemini generateContent request body ({ contents, systemInstruction })',
    detect: (doc) => isObject(json(doc)) && Array.isArray((json(doc) as Rec)['contents']),
    read: needJSON(fromGemini),
  },
  {
    name: 'ai-sdk',
    description: 'AI SDK model messages ({ messages } or an array: tool-call, tool-result, reasoning parts)',
    detect: (doc) => hasAny(blockTypes(json(doc)), ['tool-call', 'tool-result', 'reasoning', 'file']),
    read: needJSON(fromModelMessages),
  },
  {
    name: 'anthropic',
    description: 'Anthropic Messages request body ({ system, messages }: tool_use, tool_result, thinking blocks)',
    detect: (doc) => {
      const u = json(doc)
      const t = blockTypes(u)
      return (isObject(u) && 'system' in u) || (hasAny(t, ['tool_use', 'tool_result', 'thinking', 'redacted_thinking']) && !t.has('openai:tools'))
    },
    read: needJSON(fromAnthropic),
  },
  {
    name: 'openai-chat',
    description: 'OpenAI Chat Completions request body ({ messages }) or its messages array',
    detect: (doc) => messagesOf(json(doc)) !== undefined,
    read: needJSON(fromOpenAIChat),
  },
]

/** The input format of a name. */
export const inputFormat = (name: string): InputFormat | undefined => INPUT_FORMATS.find((f) => f.name === name)

/** The first input format that accepts the document. */
export const detectFormat = (doc: Doc): InputFormat | undefined => INPUT_FORMATS.find((f) => f.detect(doc))

// --- output formats ---

/**
 * What writing gave: the text to write and, for a provider format, the request itself (what a
 * request check reads) and the adapter's report.
 */
export type Written = { readonly text: string; readonly request?: unknown; readonly report?: AdapterReport }

/** An output format of `convert --to`. */
export type OutputFormat = {
  readonly name: string
  readonly description: string
  readonly write: (options: AdapterOptions) => (ms: Messages) => E.Either<AdapterError, Written>
}

/** Bytes in a request body (AI SDK image and file parts) as base64, which every reader of it accepts. */
const bytesAsBase64 = (_: string, v: unknown): unknown => (v instanceof Uint8Array ? encodeBase64(v) : v)

const body = (r: E.Either<AdapterError, { readonly request: unknown; readonly report: AdapterReport }>): E.Either<AdapterError, Written> =>
  E.map((c: { readonly request: unknown; readonly report: AdapterReport }) => ({ text: `${JSON.stringify(c.request, bytesAsBase64, 2)}\n`, request: c.request, report: c.report }))(r)

/** Every output format. */
export const OUTPUT_FORMATS: ReadonlyArray<OutputFormat> = [
  { name: 'openai-chat', description: 'OpenAI Chat Completions request body', write: (o) => (ms) => body(toOpenAIChat(o)(ms)) },
  { name: 'openai-responses', description: 'OpenAI Responses request body', write: (o) => (ms) => body(toOpenAIResponses(o)(ms)) },
  { name: 'anthropic', description: 'Anthropic Messages request body', write: (o) => (ms) => body(toAnthropic(o)(ms)) },
  { name: 'gemini', description: 'Gemini generateContent request body', write: (o) => (ms) => body(toGemini(o)(ms)) },
  { name: 'ai-sdk', description: 'AI SDK model messages ({ messages })', write: (o) => (ms) => body(toModelMessages(o)(ms)) },
  { name: 'chatfold-jsonl', description: 'chatfold JSONL', write: () => (ms) => E.right({ text: toJSONL(ms) }) },
  { name: 'chatfold-json', description: 'chatfold JSON', write: () => (ms) => E.right({ text: `${toJSON(ms, 2)}\n` }) },
  { name: 'ui-messages', description: 'AI SDK UI messages ({ messages })', write: (o) => (ms) => body(toUIMessages(o)(ms)) },
]

/** The output format of a name. */
export const outputFormat = (name: string): OutputFormat | undefined => OUTPUT_FORMATS.find((f) => f.name === name)
