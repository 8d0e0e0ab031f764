/**
 * `opencode export` files read as a history.
 *
 * The file is one JSON document: `{ info, messages: [{ info, parts }], todos }`, the session, each
 * message's info (`role`, `time`, and for a reply `modelID`, `providerID`, `tokens`, `cost`,
 * `finish`, `error`, `summary`) and its parts (`text`, `reasoning`, `file`, `tool` with its
 * `state`, `step-start` / `step-finish`, `patch`, `snapshot`, `agent`, `subtask`, `retry`,
 * `compaction`). A reply is one assistant message per step (`step-start` opens one), each followed by
 * a tool message with the results of its tools; a step's `step-finish` gives its usage and finish
 * reason. A reply marked `summary` is a compaction: the history before it is archived and its text
 * becomes the summary.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { MessageUsage } from '../tokens/recorded-usage.ts'
import type { DecodeFailure } from '../message/failure.ts'
import type { Part } from '../message/part-model.ts'
import type { Messages } from '../message/message.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import { referenceOf } from '../adapters/openai/responses.ts'
import { compactHistory } from './_compact.ts'
import { type Draft, draft, imageFromUrl, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, type Fields, fields, optNum, optStr, type Rec } from './_fields.ts'
import { type SessionRead } from './session-read.ts'

/** The usage of an opencode `tokens` record, as it reported it. */
const usageOf = (t: Rec): MessageUsage | undefined => {
  const input = optNum(t, 'input')
  const output = optNum(t, 'output')
  if (input === undefined || output === undefined) return undefined
  const cache = isObject(t['cache']) ? t['cache'] : {}
  const cacheRead = optNum(cache, 'read')
  const cacheWrite = optNum(cache, 'write')
  const reasoning = optNum(t, 'reasoning')
  return {
    input,
    output,
    ...(cacheRead === undefined ? {} : { cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoning }),
  }
}

/** A file part as an image or file, when its URL holds the bytes or is on the web; `undefined` for a local path. */
const fileOf = (x: Rec): Part | undefined => {
  const url = optStr(x, 'url')
  const mime = optStr(x, 'mime') ?? 'application/octet-stream'
  if (url === undefined || !/^(data|https?):/.test(url)) return undefined
  const filename = optStr(x, 'filename')
  if (mime.startsWith('image/')) return imageFromUrl(url, mime)
  const img = imageFromUrl(url, mime)
  return img.type === 'image' && img.data !== undefined
    ? { type: 'file', data: img.data, mediaType: mime, ...(filename === undefined ? {} : { filename }) }
    : { type: 'file', url, mediaType: mime, ...(filename === undefined ? {} : { filename }) }
}

/**
 * A reasoning part with the signature its provider's metadata carries: Anthropic's `signature` (or
 * its `redactedData`), or OpenAI's item id and encrypted content as the Responses adapter names them.
 */
const reasoningOf = (text: string, meta: Rec | undefined): Part => {
  const anthropic = meta !== undefined && isObject(meta['anthropic']) ? meta['anthropic'] : {}
  const openai = meta !== undefined && isObject(meta['openai']) ? meta['openai'] : {}
  const redacted = optStr(anthropic, 'redactedData')
  if (redacted !== undefined) return { type: 'reasoning', text: redacted, redacted: true }
  const signature = optStr(anthropic, 'signature')
  if (signature !== undefined) return { type: 'reasoning', text, signature }
  const itemId = optStr(openai, 'itemId')
  if (itemId !== undefined) return { type: 'reasoning', text, signature: referenceOf(itemId, optStr(openai, 'reasoningEncryptedContent')) }
  return { type: 'reasoning', text }
}

const errorText = (u: unknown): string | undefined => {
  if (!isObject(u)) return undefined
  const data = isObject(u['data']) ? u['data'] : {}
  const name = optStr(u, 'name') ?? 'Error'
  const message = optStr(data, 'message')
  return message === undefined ? name : `${name}: ${message}`
}

const withoutKeys = (o: Rec, keys: ReadonlyArray<string>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)))

const push = (d: Draft, key: string, value: unknown): void => {
  const oc = (d.metadata['opencode'] as Record<string, unknown> | undefined) ?? {}
  d.metadata['opencode'] = { ...oc, [key]: [...((oc[key] as unknown[] | undefined) ?? []), value] }
}

/** The drafts of a user message: its text and files, then injected (synthetic) text, then text shown only. */
const userDrafts = (f: Fields, info: Rec, parts: ReadonlyArray<unknown>, path: string, kept: ReturnType<typeof counter>): Draft[] => {
  const id = f.str(info, 'id', `${path}.info`) ?? ''
  const main = draft({
    id,
    role: 'user',
    ...at(isObject(info['time']) ? info['time']['created'] : undefined),
    metadata: { opencode: { info: withoutKeys(info, ['id', 'sessionID', 'role', 'time']) } },
  })
  const synthetic = draft({
    id: `${id}:synthetic`,
    role: 'user',
    kind: 'synthetic',
    ...at(isObject(info['time']) ? info['time']['created'] : undefined),
    metadata: { origin: 'opencode:synthetic' },
  })
  const shown = draft({
    id: `${id}:ignored`,
    role: 'user',
    kind: 'display',
    ...at(isObject(info['time']) ? info['time']['created'] : undefined),
    metadata: { origin: 'opencode:ignored' },
  })
  parts.forEach((u, j) => {
    const x = f.obj(u, `${path}.parts[${j}]`)
    const type = x === undefined ? undefined : f.str(x, 'type', `${path}.parts[${j}]`)
    if (x === undefined || type === undefined) return
    if (type === 'text' && typeof x['text'] === 'string')
      (x['ignored'] === true ? shown : x['synthetic'] === true ? synthetic : main).parts.push({ type: 'text', text: x['text'] })
    else if (type === 'file' && fileOf(x) !== undefined) main.parts.push(fileOf(x) as Part)
    else {
      kept.add(`${type} parts of user messages (in metadata.opencode.parts)`)
      push(main, 'parts', x)
    }
  })
  return [main, ...(synthetic.parts.length > 0 ? [synthetic] : []), ...(shown.parts.length > 0 ? [shown] : [])]
}

/** The drafts of a reply: an assistant message a step, each followed by a tool message with its results. */
const replyDrafts = (f: Fields, info: Rec, parts: ReadonlyArray<unknown>, path: string, kept: ReturnType<typeof counter>): Draft[] => {
  const id = f.str(info, 'id', `${path}.info`) ?? ''
  const created = isObject(info['time']) ? info['time']['created'] : undefined
  const model = optStr(info, 'modelID')
  const provider = optStr(info, 'providerID')
  const out: Draft[] = []
  let step: Draft | undefined
  let results: Draft | undefined
  let metered = false
  // where a part that is not content goes: the step being built, else the last one
  const current = (): Draft => step ?? [...out].reverse().find((d) => d.role === 'assistant') ?? open()
  const open = (): Draft => {
    if (step === undefined) {
      step = draft({
        id: out.length === 0 ? id : `${id}:${out.length}`,
        role: 'assistant',
        ...at(created),
        ...(model === undefined ? {} : { model }),
        ...(provider === undefined ? {} : { provider }),
      })
      out.push(step)
      results = undefined
    }
    return step
  }
  parts.forEach((u, j) => {
    const at_ = `${path}.parts[${j}]`
    const x = f.obj(u, at_)
    const type = x === undefined ? undefined : f.str(x, 'type', at_)
    if (x === undefined || type === undefined) return
    if (type === 'step-start') {
      if (step !== undefined && step.parts.length > 0) step = undefined
      if (x['snapshot'] !== undefined) push(open(), 'steps', { start: x['snapshot'] })
    } else if (type === 'text' || type === 'reasoning') {
      const text = f.str(x, 'text', at_)
      if (text === undefined) return
      const d = open()
      const meta = isObject(x['metadata']) ? x['metadata'] : undefined
      d.parts.push(type === 'text' ? { type, text } : reasoningOf(text, meta))
      // the provider's data on the part (item ids, signatures) stays with the message
      if (meta !== undefined) push(d, 'partMetadata', { part: d.parts.length - 1, metadata: meta })
    } else if (type === 'tool') {
      const callId = f.str(x, 'callID', at_)
      const name = f.str(x, 'tool', at_)
      const state = f.obj(x['state'], `${at_}.state`)
      const status = state === undefined ? undefined : f.str(state, 'status', `${at_}.state`)
      if (callId === undefined || name === undefined || state === undefined || status === undefined) return
      const d = open()
      d.parts.push({ type: 'tool_call', id: callId, name, arguments: JSON.stringify(state['input'] ?? {}), status: 'pending' })
      if (status !== 'completed' && status !== 'error') return void kept.add(`tool calls still ${status}, left without a result`)
      const content = status === 'completed' ? f.str(state, 'output', `${at_}.state`) : f.str(state, 'error', `${at_}.state`)
      if (content === undefined) return
      if (results === undefined) {
        results = draft({ id: `${d.id}:results`, role: 'tool', ...at(isObject(state['time']) ? state['time']['end'] : created) })
        out.push(results)
      }
      results.parts.push({ type: 'tool_result', toolCallId: callId, name, content, isError: status === 'error' })
      push(results, 'tools', {
        callID: callId,
        ...withoutKeys(state, ['input', 'output', 'error', 'status']),
        ...(x['metadata'] === undefined ? {} : { partMetadata: x['metadata'] }),
      })
    } else if (type === 'step-finish') {
      const d = current()
      const tokens = isObject(x['tokens']) ? usageOf(x['tokens']) : undefined
      if (tokens !== undefined) {
        d.metadata['usage'] = tokens
        metered = true
      }
      if (typeof x['reason'] === 'string') d.parts.push({ type: 'finish', reason: x['reason'] })
      push(d, 'steps', withoutKeys(x, ['id', 'sessionID', 'messageID', 'type', 'tokens', 'reason']))
      step = undefined
    } else if (type === 'file' && fileOf(x) !== undefined) open().parts.push(fileOf(x) as Part)
    else {
      kept.add(`${type} parts of replies (in metadata.opencode.parts)`)
      push(current(), 'parts', x)
    }
  })
  const first = out[0] ?? open()
  const tokens = isObject(info['tokens']) ? info['tokens'] : undefined
  if (!metered && tokens !== undefined) {
    const u = usageOf(tokens)
    if (u !== undefined) first.metadata['usage'] = u
  }
  first.metadata['opencode'] = {
    ...(first.metadata['opencode'] as Rec | undefined),
    info: withoutKeys(info, ['id', 'sessionID', 'role', 'time', 'modelID', 'providerID', 'error']),
    time: info['time'],
  }
  const error = errorText(info['error'])
  const last = [...out].reverse().find((d) => d.role === 'assistant')
  if (error !== undefined && last !== undefined) last.error = error
  return out
}

/**
 * Reads the JSON that `opencode export` writes. Left: what is not such a file, by path
 * (`messages[3].parts[1].state.status: expected string, …`).
 *
 * The session (`info`) and `todos` are kept in a `metadata` message first. Replies carry `model`
 * (`modelID`), `provider` (`providerID`), `createdAt`, and `metadata.usage` per step from its
 * `step-finish` tokens (the reply's own `tokens` when it has no step-finish). Synthetic user text is
 * a `synthetic` message (`metadata.origin: 'opencode:synthetic'`), ignored text a `display` one;
 * files with a `data:` or web URL are image or file parts; the rest of each part and message is kept
 * in `metadata.opencode`.
 *
 * @example
 * import { fromOpencodeExport } from 'chatfold/sessions'
 * fromOpencodeExport('{"info":{"id":"ses_1","title":"t","time":{"created":0,"updated":0}},"messages":[]}')
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromOpencodeExport = (text: string): E.Either<DecodeFailure, SessionRead> => {
  const parsed = parseJsonText(text)
  if (E.isLeft(parsed)) return E.left([{ path: '', expected: 'one JSON document', actual: parsed.left }])
  const doc = parsed.right
  const f = fields()
  const kept = counter()
  const notes: string[] = []
  const root = f.obj(doc, '')
  const session = root === undefined ? undefined : f.obj(root['info'], 'info')
  const list = root === undefined ? undefined : f.arr(root['messages'], 'messages')
  if (root === undefined || session === undefined || list === undefined) return E.left(f.issues)
  let history: Draft[] = [
    draft({
      id: `${optStr(session, 'id') ?? 'opencode'}:session`,
      role: 'system',
      kind: 'metadata',
      ...at(isObject(session['time']) ? session['time']['created'] : undefined),
      metadata: { opencode: { session, ...(root['todos'] === undefined ? {} : { todos: root['todos'] }) } },
    }),
  ]
  let archive: Messages = []
  list.forEach((u, i) => {
    const path = `messages[${i}]`
    const m = f.obj(u, path)
    const info = m === undefined ? undefined : f.obj(m['info'], `${path}.info`)
    const parts = m === undefined ? undefined : f.arr(m['parts'], `${path}.parts`)
    const role = info === undefined ? undefined : f.str(info, 'role', `${path}.info`)
    if (info === undefined || parts === undefined || role === undefined) return
    if (role === 'user') return void history.push(...userDrafts(f, info, parts, path, kept))
    if (role !== 'assistant') return void f.fail(`${path}.info.role`, '"user" | "assistant"', role)
    const ds = replyDrafts(f, info, parts, path, kept)
    if (info['summary'] !== true) return void history.push(...ds)
    const summary = ds.flatMap((d) => d.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))).join('\n\n')
    const c = compactHistory(history, summary, [], ds[0]?.createdAt)
    history = c.history
    archive = [...archive, ...c.archive, ...messagesOf(ds)]
    notes.push(`${path}: a compaction summary replaced ${c.archive.length} messages (they and the summary reply are in the archive)`)
  })
  if (f.issues.length > 0) return E.left(f.issues)
  if (kept.size() > 0) notes.push(`kept outside the conversation: ${kept.text()}`)
  return E.right(sessionRead({ messages: messagesOf(history), archive, notes, skipped: [] }))
}
