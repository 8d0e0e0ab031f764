/**
 * The formats chatfold reads a history file in, as one table (add a format by adding an entry),
 * and the detection that picks one by signature: what the command line and the history explorer
 * both read.
 *
 * chatfold JSONL and JSON, the session files of Claude Code, Codex CLI, Gemini CLI and opencode,
 * Cline / Roo Code / Kilo Code task histories, the ChatGPT and Claude.ai data exports, pi sessions,
 * GitHub Copilot chat sessions and session event streams, AI SDK UI and model messages, and OpenAI Chat, OpenAI Responses,
 * Anthropic and Gemini request bodies. Detection takes the one format whose signature
 * (`detect.ts`) the document fits; a document that fits none or several is an error naming them; a
 * named format (`--from NAME`) settles it.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, formatDecodeFailure } from '../message/failure.ts'
import type { Messages } from '../message/message.ts'
import { fromJSONL } from '../history/codec.ts'
import { decodeMessages } from '../message/message.ts'
// each adapter from its own module: the adapters' index would load every one of them, and the
// modules they carry (context edits, counting, provider counters), for a command that reads one file
import type { ModelRequest } from '../adapters/request.ts'
import { wireApiRows } from '../adapters/wire-apis.ts'
import { type ClaudeCodeSession, fromClaudeCode, readClaudeCode } from './claude-code.ts'
import { fromUIMessages } from '../adapters/ai-sdk/ui-messages-from.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import { fromCodexRollout } from './codex.ts'
import { fromGeminiCliChat } from './gemini-cli.ts'
import { fromOpencodeExport } from './opencode.ts'
import { fromClineTask } from './cline.ts'
import { fromChatGPTExport } from './chatgpt.ts'
import { fromClaudeAiExport } from './claude-ai.ts'
import { fromPiSession } from './pi.ts'
import { fromCopilotChatSession } from './copilot.ts'
import { fromCopilotEvents } from './copilot-events.ts'
import { type ChatExportConversation, joinConversations } from './chat-export.ts'
import type { SkippedLine } from './session-read.ts'
import { type Doc, type Fit, SIGNATURES } from './detect.ts'

// --- documents ---

export type { Doc } from './detect.ts'

/** What reading gave: the history, what a compaction recorded in it replaced, notes for the reader, and the lines skipped as bad. */
export type Read = {
  readonly messages: Messages
  readonly archive: Messages
  readonly notes: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<SkippedLine>
  /** A provider request body's envelope (model, tools, tool choice, settings, its other fields), when the file is one. */
  readonly request?: ModelRequest
}

/**
 * How to read a file: bad lines of JSON lines end the read (`fail`) or are left out and listed
 * (`skip`); and, for the formats where there is a choice, every branch or only the active one,
 * sub-agent runs inline or left out, and records read from elsewhere along with the file (the
 * sub-agent transcripts beside a Claude Code session).
 */
export type ReadOptions = {
  readonly badLines: 'fail' | 'skip'
  readonly branches?: 'active' | 'all'
  readonly subagents?: 'inline' | 'omit'
  readonly extraRecords?: ReadonlyArray<unknown>
  /** Files read beside the one given, parsed, by name (a Cline task's `ui_messages.json`). */
  readonly beside?: Readonly<Record<string, unknown>>
}

/** The line of a JSON parser's `position N`, counted in the text. */
const positionLine = (text: string, message: string): number | undefined => {
  const m = /position (\d+)/.exec(message)
  if (m === null) return undefined
  const pos = Number(m[1])
  let line = 1
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

/**
 * Parses a file's text: the whole as JSON, else line by line, with the first ten records that parse
 * kept for detection. Left: no line is JSON (the first line, or the line of the position the JSON
 * parser names, with its error).
 */
export const parseDoc = (text: string): E.Either<{ readonly line: number; readonly message: string }, Doc> =>
  E.mapLeft((e: { readonly line: number; readonly message: string }) => ({ line: positionLine(text, e.message) ?? e.line, message: e.message }))(
    parseDocAt(text),
  )

const parseDocAt = (text: string): E.Either<{ readonly line: number; readonly message: string }, Doc> => {
  const whole = parseJsonText(text.trim())
  if (E.isRight(whole)) return E.right({ kind: 'json', value: whole.right })
  const lines = text.split('\n')
  const firstAt = lines.findIndex((l) => l.trim() !== '')
  if (firstAt < 0) return E.left({ line: 1, message: 'the file is empty' })
  // one line only: the whole document's error is the one to show
  if (lines.filter((l) => l.trim() !== '').length === 1) return E.left({ line: firstAt + 1, message: whole.left })
  const head: Array<{ readonly n: number; readonly value: unknown }> = []
  let firstError: { readonly line: number; readonly message: string } | undefined
  for (let i = firstAt; i < lines.length && head.length < 10; i++) {
    const l = (lines[i] as string).trim()
    if (l === '') continue
    const v = parseJsonText(l)
    if (E.isRight(v)) head.push({ n: i + 1, value: v.right })
    else firstError ??= { line: i + 1, message: v.left }
  }
  return head.length === 0 ? E.left(firstError ?? { line: firstAt + 1, message: 'no JSON' }) : E.right({ kind: 'jsonl', text, head })
}

const asBody = (u: unknown): unknown => (Array.isArray(u) ? { messages: u } : u)
const plain = (r: E.Either<DecodeFailure, Messages>): E.Either<DecodeFailure, Read> =>
  E.map((messages: Messages) => ({ messages, archive: [], notes: [], skipped: [] }))(r)
const textOf = (doc: Doc): string => (doc.kind === 'jsonl' ? doc.text : JSON.stringify(doc.value))

/**
 * Reads JSON lines with a reader that stops at the first bad line, leaving bad lines out with
 * `badLines: 'skip'`: each line a failure names (`line N…`) is blanked (so numbers stay) and
 * listed, and the rest read again.
 */
const skippingLines =
  <A>(read: (text: string) => E.Either<DecodeFailure, A>) =>
  (text: string, options: ReadOptions): E.Either<DecodeFailure, { readonly value: A; readonly skipped: ReadonlyArray<SkippedLine> }> => {
    // the text as it is first: split into lines (and joined again) only when a line must be blanked
    const first = read(text)
    if (E.isRight(first)) return E.right({ value: first.right, skipped: [] })
    if (options.badLines !== 'skip') return first
    const lines = text.split('\n')
    const skipped: SkippedLine[] = []
    for (let r: E.Either<DecodeFailure, A> = first;; r = read(lines.join('\n'))) {
      if (E.isRight(r)) return E.right({ value: r.right, skipped })
      const bad = new Map<number, string>()
      for (const issue of r.left) {
        const m = /^line (\d+)(?::\s*|\.)?(.*)$/.exec(issue.path)
        if (m !== null && !bad.has(Number(m[1]))) bad.set(Number(m[1]), formatDecodeFailure([{ ...issue, path: m[2] ?? '' }]))
      }
      if (options.badLines !== 'skip' || bad.size === 0) return r
      for (const [n, reason] of bad) {
        skipped.push({ line: n, reason })
        lines[n - 1] = ''
      }
    }
  }

// --- input formats ---

/**
 * An input format: its name for `--from`, a one-line description, whether it is read line by line
 * (where `--skip-bad-lines` applies), its signature (see `detect.ts`), and how to read it.
 */
export type InputFormat = {
  readonly name: string
  readonly description: string
  readonly lines: boolean
  readonly read: (doc: Doc, options: ReadOptions) => E.Either<DecodeFailure, Read>
}

const needJSON = (f: (u: unknown) => E.Either<DecodeFailure, Messages>) => (doc: Doc): E.Either<DecodeFailure, Read> =>
  doc.kind === 'json' ? plain(f(asBody(doc.value))) : E.left([{ path: 'line 1', expected: 'one JSON document', actual: 'JSON lines' }])

/** The tool parts of UI messages without a `toolCallId`, which `fromUIMessages` keeps as they came in `metadata.ui.parts`: one note each. */
const unpairedToolParts = (ms: Messages): ReadonlyArray<string> =>
  ms.flatMap((m) => {
    const ui = m.metadata?.['ui']
    const kept = isObject(ui) && Array.isArray(ui['parts']) ? ui['parts'] : []
    return kept.flatMap((k: unknown) => {
      const part = isObject(k) ? k['part'] : undefined
      const type = isObject(part) ? part['type'] : undefined
      return typeof type === 'string' && (type.startsWith('tool-') || type === 'dynamic-tool') && isObject(k) && isObject(part) &&
          typeof part['toolCallId'] !== 'string'
        ? [`message ${m.id}: parts[${String(k['at'])}] (${type}) has no toolCallId: kept as it came (metadata.ui), not read as a tool call`]
        : []
    })
  })

/**
 * A provider's request body read whole, envelope and all: a body object through the provider's
 * `from…Request`, a bare message array (which has no envelope) through its `from…`.
 */
const requestBody =
  (whole: (u: unknown) => E.Either<DecodeFailure, ModelRequest>, messages: (u: unknown) => E.Either<DecodeFailure, Messages>) =>
  (doc: Doc): E.Either<DecodeFailure, Read> => {
    if (doc.kind !== 'json') return E.left([{ path: 'line 1', expected: 'one JSON document', actual: 'JSON lines' }])
    if (Array.isArray(doc.value)) return plain(messages(asBody(doc.value)))
    return E.map((request: ModelRequest): Read => ({ messages: request.messages, archive: [], notes: [], skipped: [], request }))(whole(doc.value))
  }

/** A Claude Code session's text read with the options, the extra records (sub-agent files) after the file's own. */
const readClaudeCodeText = (o: ReadOptions) => (text: string): E.Either<DecodeFailure, ClaudeCodeSession> => {
  const options = { ...(o.branches === undefined ? {} : { branches: o.branches }), ...(o.subagents === undefined ? {} : { subagents: o.subagents }) }
  if (o.extraRecords === undefined || o.extraRecords.length === 0) return fromClaudeCode(options)(text)
  const records: unknown[] = []
  const lineNumbers: number[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const l = (lines[i] as string).trim()
    if (l === '') continue
    const v = parseJsonText(l)
    if (E.isLeft(v)) return E.left([{ path: `line ${i + 1}`, expected: 'a JSON record', actual: v.left }])
    records.push(v.right)
    lineNumbers.push(i + 1)
  }
  return readClaudeCode({ ...options, lineNumbers })([...records, ...o.extraRecords])
}
const chatfoldLines = skippingLines(fromJSONL)

/** A chat export's conversations read one after another (see `joinConversations`). */
const chatExport =
  (from: (o: { readonly branches?: 'active' | 'all' }) => (u: unknown) => E.Either<DecodeFailure, ReadonlyArray<ChatExportConversation>>) =>
  (doc: Doc, o: ReadOptions): E.Either<DecodeFailure, Read> =>
    doc.kind === 'json'
      ? E.map(joinConversations)(from(o.branches === undefined ? {} : { branches: o.branches })(doc.value))
      : E.left([{ path: 'line 1', expected: 'one JSON document', actual: 'JSON lines' }])

/** Every input format. */
export const INPUT_FORMATS: ReadonlyArray<InputFormat> = [
  {
    name: 'chatfold-jsonl',
    description: 'chatfold JSONL: one message a line (toJSONL)',
    lines: true,
    read: (doc, o) =>
      E.map((r: { readonly value: Messages; readonly skipped: ReadonlyArray<SkippedLine> }) => ({
        messages: r.value,
        archive: [],
        notes: [],
        skipped: r.skipped,
      }))(chatfoldLines(textOf(doc), o)),
  },
  {
    name: 'chatfold-json',
    description: 'chatfold JSON: an array of messages (toJSON)',
    lines: false,
    read: (doc) => (doc.kind === 'json' ? plain(decodeMessages(doc.value)) : E.left([{ path: 'line 1', expected: 'a JSON array', actual: 'JSON lines' }])),
  },
  {
    name: 'claude-code',
    description: 'Claude Code session file (~/.claude/projects/…/SESSION.jsonl; its sub-agent transcripts beside it are read too)',
    lines: true,
    read: (doc, o) =>
      E.map((r: { readonly value: ClaudeCodeSession; readonly skipped: ReadonlyArray<SkippedLine> }) => ({
        messages: r.value.messages,
        archive: r.value.archive,
        notes: [
          ...r.value.notes,
          ...(Object.keys(r.value.skipped).length === 0
            ? []
            : [`skipped records not part of the conversation: ${Object.entries(r.value.skipped).map(([type, n]) => `${n} ${type}`).join(', ')}`]),
        ],
        skipped: r.skipped,
      }))(skippingLines(readClaudeCodeText(o))(textOf(doc), o)),
  },
  {
    name: 'codex',
    description: 'OpenAI Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)',
    lines: true,
    read: (doc, o) => fromCodexRollout(o)(textOf(doc)),
  },
  {
    name: 'gemini-cli',
    description: 'Gemini CLI chat recording (~/.gemini/tmp/<project>/chats/session-*.json or .jsonl)',
    lines: true,
    read: (doc, o) => fromGeminiCliChat(o)(textOf(doc)),
  },
  {
    name: 'copilot',
    description: 'GitHub Copilot chat session of VS Code (workspaceStorage/<hash>/chatSessions/<id>.json or .jsonl)',
    lines: false,
    read: (doc) => fromCopilotChatSession(textOf(doc)),
  },
  {
    name: 'copilot-events',
    description: 'GitHub Copilot session event stream (Copilot CLI ~/.copilot/session-state/<id>/events.jsonl, Copilot Chat transcripts/<id>.jsonl)',
    lines: true,
    read: (doc, o) => fromCopilotEvents(o)(textOf(doc)),
  },
  {
    name: 'pi',
    description: 'pi coding agent session (~/.pi/agent/sessions/--<path>--/<timestamp>_<uuid>.jsonl)',
    lines: true,
    read: (doc, o) => fromPiSession(o)(textOf(doc)),
  },
  {
    name: 'chatgpt',
    description: 'ChatGPT data export (conversations.json: every conversation, one after another)',
    lines: false,
    read: chatExport(fromChatGPTExport),
  },
  {
    name: 'claude-ai',
    description: 'Claude.ai data export (conversations.json: every conversation, one after another)',
    lines: false,
    read: chatExport(fromClaudeAiExport),
  },
  {
    name: 'cline',
    description: 'Cline / Roo Code / Kilo Code task (tasks/<id>/api_conversation_history.json; its ui_messages.json beside it is read too)',
    lines: false,
    read: (doc, o) =>
      doc.kind === 'json'
        ? fromClineTask({ history: doc.value, ...(o.beside?.['ui_messages.json'] === undefined ? {} : { ui: o.beside['ui_messages.json'] }) })
        : E.left([{ path: 'line 1', expected: 'one JSON document', actual: 'JSON lines' }]),
  },
  {
    name: 'opencode',
    description: 'opencode export JSON (opencode export SESSION)',
    lines: false,
    read: (
      doc,
    ) => (doc.kind === 'json'
      ? fromOpencodeExport(JSON.stringify(doc.value))
      : E.left([{ path: 'line 1', expected: 'one JSON document', actual: 'JSON lines' }])),
  },
  {
    name: 'ui-messages',
    description: 'AI SDK UI messages ({ messages } or an array: what useChat holds and apps persist; v4 and v5)',
    lines: false,
    read: (doc) => E.map((r: Read) => ({ ...r, notes: [...r.notes, ...unpairedToolParts(r.messages)] }))(needJSON(fromUIMessages)(doc)),
  },
  ...wireApiRows.map(
    (row): InputFormat => ({
      name: row.api,
      description: row.cli.input,
      lines: false,
      read: row.request === undefined ? needJSON(row.from) : requestBody(row.request.from, row.from),
    }),
  ),
]

/** The input format of a name. */
export const inputFormat = (name: string): InputFormat | undefined => INPUT_FORMATS.find((f) => f.name === name)

/** A format whose signature a document fits, and why. */
export type Candidate = { readonly format: InputFormat } & Fit

/**
 * Every input format whose signature the document fits. A fit that is only `plain` (a chat body of
 * text messages) gives way to a format with a distinctive fit.
 */
export const candidates = (doc: Doc): ReadonlyArray<Candidate> => {
  const fits = INPUT_FORMATS.flatMap((format) => {
    const fit = SIGNATURES[format.name]?.(doc)
    return fit === undefined ? [] : [{ format, ...fit }]
  })
  const distinct = fits.filter((c) => c.plain !== true)
  return distinct.length > 0 ? distinct : fits
}

/**
 * The one format a document is in. Left: why it cannot be told (no signature fits, or several do,
 * each named with the line or field that decided).
 */
export const detectFormat = (doc: Doc): E.Either<string, Candidate> => {
  const cs = candidates(doc)
  if (cs.length === 1) return E.right(cs[0] as Candidate)
  if (cs.length === 0)
    return E.left(
      `no format's signature fits (${
        doc.kind === 'jsonl' ? `JSON lines, line ${doc.head[0]?.n ?? 1} has keys ${keys(doc.head[0]?.value)}` : `one JSON document with ${keys(doc.value)}`
      })`,
    )
  return E.left(`it fits several formats: ${cs.map((c) => `${c.format.name} (${c.why})`).join('; ')}`)
}

const keys = (
  u: unknown,
): string => (isObject(u) ? Object.keys(u).slice(0, 8).join(', ') || 'no keys' : Array.isArray(u) ? `an array of ${u.length}` : typeof u)
