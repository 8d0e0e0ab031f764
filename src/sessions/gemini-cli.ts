/**
 * Gemini CLI chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json` or `.jsonl`) read as a
 * history.
 *
 * The older form is one JSON `ConversationRecord`: `{ sessionId, projectHash, startTime,
 * lastUpdated, messages }`. The newer form is JSON lines replayed in order: a metadata line
 * (`sessionId`, `projectHash`, …), message records (a record whose `id` was seen before replaces it
 * in place), `{ "$set": {…} }` metadata updates (a non-empty `messages` there is the history), and
 * `{ "$rewindTo": id }`, which drops that message and every later one (all of them when the id is
 * unknown). What a rewind dropped, and the message lines a `$set.messages` replaced, go to the
 * archive. A message is `user`, `gemini` (content, `thoughts`, `toolCalls` with their results,
 * `tokens`, `model`), or `info` / `error` / `warning` (notices of the command line).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { MessageUsage } from '../tokens/recorded-usage.ts'
import type { DecodeFailure } from '../message/failure.ts'
import type { Part, ToolResultBlock } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import { bytesOf } from '../adapters/media.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, type Fields, fields, optNum, optStr, type Rec } from './_fields.ts'
import { injectedOrigin } from './_injected.ts'
import { eachLine, type Line } from './_lines.ts'
import { type SessionOptions, type SessionRead } from './session-read.ts'

/** Statuses of a tool call that ran to an end, and whether that end is an error. */
const ENDED: Readonly<Record<string, boolean>> = { success: false, error: true, cancelled: true }

/** One Gemini API part as a chatfold part, or `undefined` when chatfold has no part for it. */
const partOf = (u: unknown): Part | undefined => {
  if (!isObject(u)) return undefined
  if (typeof u['text'] === 'string') return u['thought'] === true ? { type: 'reasoning', text: u['text'] } : { type: 'text', text: u['text'] }
  const inline = u['inlineData']
  if (isObject(inline) && typeof inline['data'] === 'string' && typeof inline['mimeType'] === 'string') {
    const data = bytesOf(inline['data'])
    if (data === undefined) return undefined
    return inline['mimeType'].startsWith('image/')
      ? { type: 'image', data, mediaType: inline['mimeType'] }
      : { type: 'file', data, mediaType: inline['mimeType'] }
  }
  const file = u['fileData']
  if (isObject(file) && typeof file['fileUri'] === 'string') {
    const mediaType = optStr(file, 'mimeType') ?? 'application/octet-stream'
    return mediaType.startsWith('image/') ? { type: 'image', url: file['fileUri'], mediaType } : { type: 'file', url: file['fileUri'], mediaType }
  }
  return undefined
}

/** Content (`PartListUnion`: a string, a part, or parts) as chatfold parts, and what had no place. */
const contentOf = (u: unknown): { readonly parts: Part[]; readonly other: unknown[] } => {
  const parts: Part[] = []
  const other: unknown[] = []
  // an empty string is how a reply with only thoughts or tool calls records its content: no part
  for (const x of typeof u === 'string' ? (u === '' ? [] : [{ text: u }]) : Array.isArray(u) ? u : u === undefined || u === null ? [] : [u]) {
    const p = typeof x === 'string' ? ({ type: 'text', text: x } as const) : partOf(x)
    if (p === undefined) other.push(x)
    else parts.push(p)
  }
  return { parts, other }
}

/** A part as a block of a tool result: an image or a file (inline bytes or a file URI), else nothing. */
const mediaOf = (u: unknown): ToolResultBlock | undefined => {
  const p = partOf(u)
  return p?.type === 'image' || p?.type === 'file' ? p : undefined
}

/**
 * A tool call's result: the text of each function response's `output` (or `error`, or the response
 * as JSON) and of any text part, and the images and files the tool returned, inside the function
 * response (`functionResponse.parts`) or as parts beside it.
 */
const resultOf = (u: unknown): { readonly text: string; readonly media: ToolResultBlock[]; readonly other: unknown[] } => {
  const texts: string[] = []
  const media: ToolResultBlock[] = []
  const other: unknown[] = []
  for (const x of Array.isArray(u) ? u : u === undefined || u === null ? [] : [u]) {
    const fr = isObject(x) ? x['functionResponse'] : undefined
    const m = mediaOf(x)
    if (isObject(fr)) {
      const r = fr['response']
      texts.push(
        isObject(r) && typeof r['output'] === 'string' ? r['output'] : isObject(r) && typeof r['error'] === 'string' ? r['error'] : JSON.stringify(r ?? null),
      )
      for (const y of Array.isArray(fr['parts']) ? fr['parts'] : []) {
        const n = mediaOf(y)
        if (n === undefined) other.push(y)
        else media.push(n)
      }
    } else if (typeof x === 'string') texts.push(x)
    else if (isObject(x) && typeof x['text'] === 'string') texts.push(x['text'])
    else if (m !== undefined) media.push(m)
    else other.push(x)
  }
  return { text: texts.join('\n'), media, other }
}

const usageOf = (t: Rec): MessageUsage | undefined => {
  const input = optNum(t, 'input')
  const output = optNum(t, 'output')
  if (input === undefined || output === undefined) return undefined
  const cacheRead = optNum(t, 'cached')
  const reasoning = optNum(t, 'thoughts')
  // Gemini counts cached tokens inside the prompt's count; the usage contract keeps them apart, so
  // that input + cacheRead is the prompt, as for every source (the record stays in metadata.gemini.tokens)
  const uncached = Math.max(0, input - (cacheRead ?? 0))
  return { input: uncached, output, ...(cacheRead === undefined ? {} : { cacheRead }), ...(reasoning === undefined ? {} : { reasoning }) }
}

/** The drafts of one message record: one message, and for a reply with tool calls, a tool message of their results. */
const messageDrafts = (f: Fields, u: unknown, path: string, kept: ReturnType<typeof counter>): Draft[] => {
  const m = f.obj(u, path)
  if (m === undefined) return []
  const id = f.str(m, 'id', path)
  const type = f.str(m, 'type', path)
  if (id === undefined || type === undefined) return []
  const { parts, other } = contentOf(m['content'])
  const gemini: Record<string, unknown> = {}
  if (other.length > 0) {
    gemini['content'] = other
    kept.add('content parts chatfold has no part for (in metadata.gemini.content)')
  }
  if (m['displayContent'] !== undefined) gemini['displayContent'] = m['displayContent']
  if (type === 'user') {
    const first = parts.find((p) => p.type === 'text')
    const origin = first?.type === 'text' ? injectedOrigin(first.text) : undefined
    return [
      draft({
        id,
        role: 'user',
        ...(origin === undefined ? {} : { kind: 'synthetic' as const }),
        parts,
        ...at(m['timestamp']),
        metadata: { ...(origin === undefined ? {} : { origin }), ...(Object.keys(gemini).length === 0 ? {} : { gemini }) },
      }),
    ]
  }
  if (type !== 'gemini') {
    kept.add(`${type} notices (display messages)`)
    return [
      draft({
        id,
        role: 'system',
        kind: 'display',
        parts,
        ...at(m['timestamp']),
        metadata: { origin: `gemini-cli:${type}`, ...(Object.keys(gemini).length === 0 ? {} : { gemini }) },
      }),
    ]
  }
  const reasoning: Part[] = []
  const thoughts = m['thoughts'] === undefined || m['thoughts'] === null ? [] : f.arr(m['thoughts'], `${path}.thoughts`)
  thoughts?.forEach((t, i) => {
    const x = f.obj(t, `${path}.thoughts[${i}]`)
    if (x === undefined) return
    const subject = optStr(x, 'subject') ?? ''
    const description = optStr(x, 'description') ?? ''
    reasoning.push({ type: 'reasoning', text: subject === '' ? description : description === '' ? subject : `**${subject}** ${description}` })
  })
  const calls: Part[] = []
  const results: Part[] = []
  const resultsMeta: Record<string, unknown> = {}
  const toolCalls = m['toolCalls'] === undefined || m['toolCalls'] === null ? [] : f.arr(m['toolCalls'], `${path}.toolCalls`)
  toolCalls?.forEach((c, i) => {
    const at_ = `${path}.toolCalls[${i}]`
    const x = f.obj(c, at_)
    if (x === undefined) return
    const callId = f.str(x, 'id', at_)
    const name = f.str(x, 'name', at_)
    const status = f.str(x, 'status', at_)
    if (callId === undefined || name === undefined || status === undefined) return
    calls.push({ type: 'tool_call', id: callId, name, arguments: JSON.stringify(x['args'] ?? {}), status: 'pending' })
    const { args: _a, result, id: _i, name: _n, ...rest } = x
    resultsMeta[callId] = rest
    if (!(status in ENDED)) return void kept.add(`tool calls that had not ended (${status}), left without a result`)
    const r = resultOf(result)
    const text = r.text === '' && typeof x['resultDisplay'] === 'string' ? x['resultDisplay'] : r.text
    if (r.other.length > 0) resultsMeta[callId] = { ...rest, result: r.other }
    const content = r.media.length === 0 ? text : [...(text === '' ? [] : [{ type: 'text' as const, text }]), ...r.media]
    results.push({ type: 'tool_result', toolCallId: callId, name, content, isError: ENDED[status] === true })
  })
  const tokens = m['tokens'] === undefined || m['tokens'] === null ? undefined : f.obj(m['tokens'], `${path}.tokens`)
  const usage = tokens === undefined ? undefined : usageOf(tokens)
  if (tokens !== undefined) gemini['tokens'] = tokens
  const model = optStr(m, 'model')
  const reply = draft({
    id,
    role: 'assistant',
    parts: [...reasoning, ...parts, ...calls],
    ...at(m['timestamp']),
    ...(model === undefined ? {} : { model }),
    provider: 'google',
    metadata: { ...(usage === undefined ? {} : { usage }), ...(Object.keys(gemini).length === 0 ? {} : { gemini }) },
  })
  if (results.length === 0) return [reply]
  return [reply, draft({ id: `${id}:results`, role: 'tool', parts: results, ...at(m['timestamp']), metadata: { gemini: { toolCalls: resultsMeta } } })]
}

const sessionMeta = (o: Rec): Record<string, unknown> => {
  const { messages: _, ...rest } = o
  return rest
}

/**
 * Reads a Gemini CLI chat recording, in either form (one JSON record, or JSON lines replayed as the
 * command line replays them). Left: what is not a recording, by line (JSON lines) or path (JSON),
 * unless `badLines: 'skip'` (JSON lines), which lists such lines in `skipped` and reads the rest.
 *
 * The session's fields are kept in a `metadata` message first. Replies carry `model`,
 * `provider: 'google'`, `createdAt` and `metadata.usage` from `tokens` (`cached` as `cacheRead`,
 * `thoughts` as `reasoning`; the whole record in `metadata.gemini.tokens`); their thoughts become
 * reasoning parts (`**subject** description`); each tool call's result becomes a tool result (an
 * `error` or `cancelled` call's as an error), with the call's display fields in
 * `metadata.gemini.toolCalls`. `info`, `error` and `warning` records become `display` messages.
 *
 * @example
 * import { fromGeminiCliChat } from 'chatfold/sessions'
 * fromGeminiCliChat({})('{"sessionId":"s","projectHash":"p","startTime":"2026-01-05T09:00:00.000Z","lastUpdated":"2026-01-05T09:00:00.000Z","messages":[]}')
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromGeminiCliChat = (options: SessionOptions = {}) => (text: string): E.Either<DecodeFailure, SessionRead> => {
  const kept = counter()
  const notes: string[] = []
  const parsed = parseJsonText(text)
  const whole = E.isRight(parsed) ? parsed.right : undefined
  if (isObject(whole) && Array.isArray(whole['messages'])) {
    const f = fields()
    const ds = whole['messages'].flatMap((m, i) => messageDrafts(f, m, `messages[${i}]`, kept))
    if (f.issues.length > 0) return E.left(f.issues)
    if (kept.size() > 0) notes.push(`kept outside the conversation: ${kept.text()}`)
    const meta = draft({
      id: `${optStr(whole, 'sessionId') ?? 'gemini'}:session`,
      role: 'system',
      kind: 'metadata',
      ...at(whole['startTime']),
      metadata: { gemini: sessionMeta(whole) },
    })
    return E.right(sessionRead({ messages: messagesOf([meta, ...ds]), archive: [], notes, skipped: [] }))
  }
  let metadata: Record<string, unknown> = {}
  // the records as replayed (a record read again later replaces the one before it); read into messages at the end
  const byId = new Map<string, { readonly n: number; readonly record: unknown }>()
  // messages a rewind dropped, in file order: kept in the archive
  const rewound: Array<{ readonly n: number; readonly record: unknown }> = []
  const take = ({ n, value }: Line): DecodeFailure => {
    const f = fields()
    const rec = f.obj(value, '')
    if (rec === undefined) return f.issues
    if (typeof rec['$rewindTo'] === 'string') {
      const ids = [...byId.keys()]
      const from = ids.indexOf(rec['$rewindTo'])
      for (const id of from < 0 ? ids : ids.slice(from)) {
        const dropped = byId.get(id)
        if (dropped !== undefined) rewound.push(dropped)
        byId.delete(id)
      }
      return []
    }
    if (typeof rec['id'] === 'string') {
      messageDrafts(f, rec, '', counter())
      if (f.issues.length > 0) return f.issues
      byId.set(rec['id'], { n, record: rec })
      return []
    }
    if (isObject(rec['$set'])) {
      metadata = { ...metadata, ...rec['$set'] }
      return []
    }
    if (typeof rec['sessionId'] === 'string' && typeof rec['projectHash'] === 'string') {
      metadata = { ...metadata, ...rec }
      return []
    }
    f.fail('', 'a message record (id), a $set or $rewindTo record, or the session line (sessionId, projectHash)', value)
    return f.issues
  }
  const read = eachLine(text, options, take)
  if (E.isLeft(read)) return read
  const f = fields()
  const replaced = metadata['messages']
  const fromSet = Array.isArray(replaced) && replaced.length > 0
  const lines = [...byId.values()].flatMap((x) => messageDrafts(f, x.record, `line ${x.n}`, fromSet ? counter() : kept))
  const ds = fromSet ? replaced.flatMap((m, i) => messageDrafts(f, m, `$set.messages[${i}]`, kept)) : lines
  const dropped = rewound.flatMap((x) => messageDrafts(f, x.record, `line ${x.n}`, counter()))
  if (f.issues.length > 0) return E.left(f.issues)
  if (fromSet)
    notes.push(`the history is the recording's last $set.messages (${replaced.length} records); the ${byId.size} message lines it replaced are in the archive`)
  if (rewound.length > 0) notes.push(`${rewound.length} messages dropped by $rewindTo records, as the command line drops them (they are in the archive)`)
  if (kept.size() > 0) notes.push(`kept outside the conversation: ${kept.text()}`)
  const meta = draft({
    id: `${optStr(metadata, 'sessionId') ?? 'gemini'}:session`,
    role: 'system',
    kind: 'metadata',
    ...at(metadata['startTime']),
    metadata: { gemini: sessionMeta(metadata) },
  })
  return E.right(sessionRead({ messages: messagesOf([meta, ...ds]), archive: messagesOf([...dropped, ...(fromSet ? lines : [])]), notes, skipped: read.right }))
}
