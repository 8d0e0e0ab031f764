/**
 * The signature of each input format: the fields a document must have to be in it, and which line
 * or field showed them. Detection takes the format whose signature fits; a document no signature
 * fits, or that several fit, is not guessed at (see `detectFormat` in `input-formats.ts`).
 *
 * @module
 */
import { isObject } from '../internal/object.ts'
import { isClaudeCodeRecord } from './claude-code.ts'
import { messagesOf, where } from '../adapters/shape.ts'
import { wireApiRows } from '../adapters/wire-apis.ts'
import { isClineHistory } from './cline.ts'
import { isChatGPTExport } from './chatgpt.ts'
import { isClaudeAiExport } from './claude-ai.ts'
import { isPiSessionLine } from './pi.ts'
import { isCopilotChatSession } from './copilot.ts'
import { isCopilotEvent } from './copilot-events.ts'

/** A file's text, parsed once: one JSON value, or JSON lines (the first records parsed, bad ones left out). */
export type Doc =
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'jsonl'; readonly text: string; readonly head: ReadonlyArray<{ readonly n: number; readonly value: unknown }> }

/**
 * Why a document fits a format (`line 1: type "session_meta" with a payload`). `plain` marks a fit
 * by the absence of anything another format has (a chat body of text messages only), which another
 * format's reader would read the same.
 */
export type Fit = { readonly why: string; readonly plain?: true }

type Rec = Readonly<Record<string, unknown>>

// --- records of the line formats ---

const CODEX_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted'])
const isCodexRecord = (u: unknown): boolean => isObject(u) && typeof u['type'] === 'string' && CODEX_TYPES.has(u['type']) && isObject(u['payload'])

const GEMINI_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning'])
const isGeminiMessage = (u: unknown): boolean =>
  isObject(u) && typeof u['id'] === 'string' && typeof u['type'] === 'string' && GEMINI_TYPES.has(u['type']) && 'content' in u && !('role' in u)
const isGeminiSession = (u: unknown): boolean => isObject(u) && typeof u['sessionId'] === 'string' && typeof u['projectHash'] === 'string'

/** Chatfold's wire form of a message: a role, and parts each `{ type, data }`. */
const isChatfoldMessage = (u: unknown): boolean =>
  isObject(u) && typeof u['role'] === 'string' && Array.isArray(u['parts']) &&
  u['parts'].every((p: unknown) => isObject(p) && typeof p['type'] === 'string' && isObject(p['data']))

/** The records of a document read line by line (one JSON value is one record). */
const records = (doc: Doc): ReadonlyArray<{ readonly n: number; readonly value: unknown }> => (doc.kind === 'jsonl' ? doc.head : [{ n: 1, value: doc.value }])

const firstWhere = (doc: Doc, test: (u: unknown) => boolean, what: string): Fit | undefined => {
  const r = records(doc).find((x) => test(x.value))
  return r === undefined ? undefined : { why: `line ${r.n}: ${what}` }
}

// --- message lists ---

const json = (doc: Doc): unknown => (doc.kind === 'json' ? doc.value : undefined)

/**
 * An AI SDK UI message (v5: `parts`; v4: `parts` beside a legacy `content`, or only `content` in the
 * oldest v4): an id, a role, and parts not in chatfold's tagged form.
 */
const isUIMessage = (u: unknown): boolean =>
  isObject(u) && typeof u['id'] === 'string' && typeof u['role'] === 'string' && !('kind' in u) &&
  (Array.isArray(u['parts']) ? !isChatfoldMessage(u) : typeof u['content'] === 'string')
const hasParts = (u: unknown): boolean => isObject(u) && Array.isArray(u['parts'])

// --- signatures ---

/** The signature of each input format by name: the fit of a document, or `undefined`. */
export const SIGNATURES: Readonly<Record<string, (doc: Doc) => Fit | undefined>> = {
  'chatfold-jsonl': (
    doc,
  ) => (doc.kind === 'jsonl'
    ? firstWhere({ ...doc, head: doc.head.slice(0, 1) }, isChatfoldMessage, 'a message with role and tagged parts ({ type, data })')
    : isChatfoldMessage(doc.value)
    ? { why: 'one message with role and tagged parts ({ type, data })' }
    : undefined),
  'chatfold-json': (doc) => {
    const u = json(doc)
    return Array.isArray(u) && u.length > 0 && isChatfoldMessage(u[0]) ? { why: '[0] is a message with role and tagged parts ({ type, data })' } : undefined
  },
  'claude-code': (
    doc,
  ) => (doc.kind === 'jsonl'
    ? firstWhere(doc, (u) => isClaudeCodeRecord(u) && !isChatfoldMessage(u), 'a record with type and sessionId/uuid (Claude Code)')
    : isClaudeCodeRecord(doc.value)
    ? { why: 'a record with type and sessionId/uuid (Claude Code)' }
    : undefined),
  codex: (doc) => {
    const r = records(doc).find((x) => isCodexRecord(x.value))
    if (r !== undefined) return { why: `line ${r.n}: type "${(r.value as Rec)['type'] as string}" with a payload (Codex rollout)` }
    // the older form: a state marker line
    return firstWhere(doc, (u) => isObject(u) && u['record_type'] === 'state' && !('type' in u), '{"record_type":"state"} (Codex rollout, older form)')
  },
  'gemini-cli': (doc) => {
    const u = json(doc)
    if (isGeminiSession(u) && Array.isArray((u as Rec)['messages'])) return { why: 'sessionId, projectHash and messages (Gemini CLI recording)' }
    if (doc.kind !== 'jsonl') return undefined
    return firstWhere(
      doc,
      (v) => isGeminiSession(v) || isGeminiMessage(v) || (isObject(v) && (isObject(v['$set']) || typeof v['$rewindTo'] === 'string')),
      'a Gemini CLI recording line (sessionId and projectHash, a message with id and type, $set or $rewindTo)',
    )
  },
  copilot: (
    doc,
  ) => (doc.kind === 'json'
    ? (isCopilotChatSession(doc.value) ? { why: 'sessionId, version and requests (GitHub Copilot chat session)' } : undefined)
    : firstWhere(
      { ...doc, head: doc.head.slice(0, 1) },
      isCopilotChatSession,
      'a first snapshot { kind: 0, v: { requests } } (GitHub Copilot chat session journal)',
    )),
  'copilot-events': (
    doc,
  ) => (doc.kind === 'jsonl'
    ? firstWhere(
      { ...doc, head: doc.head.slice(0, 1) },
      isCopilotEvent,
      'an event with a dotted type, data, id and parentId (GitHub Copilot session event stream)',
    )
    : isCopilotEvent(doc.value)
    ? { why: 'one event with a dotted type, data, id and parentId (GitHub Copilot session event stream)' }
    : undefined),
  pi: (
    doc,
  ) => (doc.kind === 'jsonl'
    ? firstWhere({ ...doc, head: doc.head.slice(0, 1) }, isPiSessionLine, 'a pi session header or entry (type, id, parentId, timestamp)')
    : undefined),
  chatgpt: (
    doc,
  ) => (isChatGPTExport(json(doc)) ? { why: 'an array of conversations with mapping and current_node (ChatGPT data export conversations.json)' } : undefined),
  'claude-ai': (
    doc,
  ) => (isClaudeAiExport(json(doc)) ? { why: 'an array of conversations with uuid and chat_messages (Claude.ai data export conversations.json)' } : undefined),
  cline: (
    doc,
  ) => (isClineHistory(json(doc))
    ? {
      why:
        'an array of { role, content } messages with modelInfo/metrics, ts on each, or a <task> opening (Cline, Roo Code, Kilo Code api_conversation_history.json)',
    }
    : undefined),
  opencode: (doc) => {
    const u = json(doc)
    if (!isObject(u) || !isObject(u['info']) || !Array.isArray(u['messages'])) return undefined
    const ms = u['messages']
    if (ms.length === 0)
      return typeof u['info']['id'] === 'string' && isObject(u['info']['time'])
        ? { why: 'info (a session with id and time) and no messages (opencode export)' }
        : undefined
    return ms.every((m: unknown) => isObject(m) && isObject(m['info']) && Array.isArray(m['parts']))
      ? { why: 'info, and messages each with info and parts (opencode export)' }
      : undefined
  },
  'ui-messages': (doc) => {
    const u = json(doc)
    const ms = messagesOf(u)
    if (ms === undefined || ms.length === 0 || !ms.every(isUIMessage) || !ms.some(hasParts)) return undefined
    const v4 = ms.findIndex((m) => isObject(m) && 'content' in m)
    return { why: `${where(u)}[*] each have id, role and parts${v4 < 0 ? '' : ` (${where(u)}[${v4}] also has a legacy content, which parts win over)`}` }
  },
  // each wire API's request body, by the shape in its row; a Cline task history is Anthropic-shaped
  // messages too, and is read as the task history it is
  ...Object.fromEntries(
    wireApiRows.map((
      row,
    ) => [row.api, (doc: Doc): Fit | undefined => (row.api === 'anthropic' && isClineHistory(json(doc)) ? undefined : row.shape(json(doc)))]),
  ),
}
