/**
 * The session event stream of GitHub Copilot's agent runtime read as a history: the Copilot CLI's
 * `~/.copilot/session-state/<id>/events.jsonl` and the transcript Copilot Chat writes beside its
 * VS Code sessions (`GitHub.copilot-chat/transcripts/<id>.jsonl`). Both are written by the same
 * runtime (`session.start` names `producer: 'copilot-agent'`).
 *
 * Each line is an event `{ type, data, id, parentId, timestamp, agentId? }`; the events follow one
 * another in the file (each `parentId` names the one before), so the history is read in file order:
 *
 * - `session.start` is a `metadata` message keeping its data (`metadata.copilot`: session id,
 *   versions, working directory, repository); `session.model_change` sets the model of the replies
 *   after it.
 * - `user.message`: a user message of its `content`; `transformedContent` (the text as the model got
 *   it, with the context the runtime added) and `attachments` are kept in metadata, counted in a
 *   note. `system.message`: a system message (a `developer` one keeps that role in `metadata.role`).
 * - `assistant.reasoning` and an `assistant.message`'s `reasoningText`: reasoning parts of the reply;
 *   `assistant.message`: the reply's `content` and its `toolRequests` as tool calls (`toolCallId`,
 *   `name`, `arguments` as a JSON string or value), `model` (else the session's), its
 *   `reasoningOpaque` / `encryptedContent` kept in metadata.
 * - `tool.execution_complete`: a tool message with the result of its call: `result.content` (the text
 *   the model got; an older `textResultForLlm` too), an image of `result.contents` an image block;
 *   `detailedContent` kept in metadata; `error.message` (or `success: false`) an error result. A
 *   call whose completion holds no result text (the VS Code transcript writes only `success`) or that
 *   has no completion is answered with a text saying so, and a note counts them; a completion of no
 *   call in the stream (a tool the user ran) is a `display` message, counted.
 * - Events of a sub-agent (`agentId`, or `data.parentToolCallId`) are `display` messages with
 *   `metadata.subagent = { toolCallId?, agentId? }`, after the main agent's.
 * - `session.compaction_complete` with a `summaryContent`: the history so far is replaced by the
 *   summary, and archived.
 * - Every other event (turn starts and ends, usage, hooks, tool starts and progress) is not part of
 *   the conversation: counted by type in a note. A `session.truncation` (the runtime dropped older
 *   messages from what it sent, naming none) is said in a note with how many it dropped.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Messages } from '../message/message.ts'
import type { Part, ToolResultBlock, ToolResultContent } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import { decodeBase64 } from '../internal/base64.ts'
import { compactHistory } from './_compact.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, optStr, type Rec } from './_fields.ts'
import { eachLine } from './_lines.ts'
import type { SessionOptions, SessionRead } from './session-read.ts'

/** What a call is answered with when the stream holds no result text for it. */
const NO_RESULT = '(the event stream holds no result of this call)'

/** Events read into the history; every other type is counted in a note. */
const READ = new Set([
  'session.start',
  'session.model_change',
  'user.message',
  'system.message',
  'assistant.reasoning',
  'assistant.message',
  'tool.execution_complete',
  'session.compaction_complete',
])

/** A tool call's arguments as a JSON string: a string as it came, any other value as its JSON. */
const argumentsOf = (u: unknown): string => (typeof u === 'string' ? u : JSON.stringify(u ?? {}))

/** A tool result's content: its text, or its blocks when `contents` holds an image. */
const resultContent = (result: Rec): { readonly content: ToolResultContent; readonly held: boolean } => {
  const text = optStr(result, 'content') ?? optStr(result, 'textResultForLlm') ?? optStr(result, 'text_result_for_llm')
  const images = (Array.isArray(result['contents']) ? result['contents'].filter(isObject) : []).flatMap((c): ToolResultBlock[] => {
    const data = c['type'] === 'image' && typeof c['data'] === 'string' ? decodeBase64(c['data']) : undefined
    return data === undefined ? [] : [{ type: 'image', data, ...(typeof c['mimeType'] === 'string' ? { mediaType: c['mimeType'] } : {}) }]
  })
  if (images.length > 0) return { content: [...(text === undefined || text === '' ? [] : [{ type: 'text' as const, text }]), ...images], held: true }
  return text === undefined ? { content: NO_RESULT, held: false } : { content: text, held: true }
}

/** Whether a result object says the tool failed (an older `resultType`). */
const failed = (result: Rec): boolean => ['failure', 'denied', 'rejected'].includes(optStr(result, 'resultType') ?? optStr(result, 'result_type') ?? '')

/**
 * Reads a Copilot session event stream's text (JSON lines) as a history (see the module notes).
 * Left: a line that is not JSON, or not an event (`type` and `data`), named by line (`badLines:
 * 'skip'` lists it instead).
 *
 * @example
 * import { fromCopilotEvents } from 'chatfold/sessions'
 * const r = fromCopilotEvents()([
 *   '{"type":"session.start","data":{"sessionId":"s1","producer":"copilot-agent","copilotVersion":"1.0.45"},"id":"e1","timestamp":"2026-05-12T00:21:05.254Z","parentId":null}',
 *   '{"type":"user.message","data":{"content":"Hi","attachments":[]},"id":"e2","timestamp":"2026-05-12T00:21:10.000Z","parentId":"e1"}',
 *   '{"type":"assistant.message","data":{"messageId":"m1","content":"Hello!"},"id":"e3","timestamp":"2026-05-12T00:21:12.000Z","parentId":"e2"}',
 * ].join('\n'))
 * // right({ messages: [session metadata, user "Hi", assistant "Hello!"], … })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromCopilotEvents = (options: SessionOptions = {}) => (text: string): E.Either<DecodeFailure, SessionRead> => {
  const events: Array<{ readonly n: number; readonly e: Rec }> = []
  const read = eachLine(text, options, ({ n, value }) => {
    if (!isObject(value) || typeof value['type'] !== 'string')
      return [{ path: 'type', expected: 'a Copilot session event', actual: isObject(value) ? value['type'] : value }]
    if (!isObject(value['data'])) return [{ path: 'data', expected: 'object', actual: value['data'] }]
    events.push({ n, e: value })
    return []
  })
  if (E.isLeft(read)) return read
  let history: Draft[] = []
  const sub: Draft[] = []
  let archive: Messages = []
  const other = counter()
  const kept = counter()
  let model: string | undefined
  let reasoning: Part[] = []
  let noText = 0
  let unanswered = 0
  let orphans = 0
  let truncated = 0
  // calls not answered yet, by id: where the call is and its name
  const open = new Map<string, { readonly name: string; readonly into: Draft[] }>()
  const answerOpen = (into: Draft[], when: { readonly createdAt?: string }): void => {
    const ids = [...open].filter(([, c]) => c.into === into)
    if (ids.length === 0) return
    unanswered += ids.length
    const parts = ids.map(([id, c]): Part => ({ type: 'tool_result', toolCallId: id, name: c.name, content: NO_RESULT, isError: false }))
    into.push(draft({ id: `${ids[0]?.[0] ?? 'call'}.unanswered`, role: 'tool', kind: 'synthetic', parts, ...when, metadata: { origin: 'stream' } }))
    for (const [id] of ids) open.delete(id)
  }
  for (const { n, e } of events) {
    const type = e['type'] as string
    const data = e['data'] as Rec
    const id = optStr(e, 'id') ?? `line-${n}`
    const when = at(e['timestamp'])
    if (type === 'session.truncation') truncated += typeof data['messagesRemovedDuringTruncation'] === 'number' ? data['messagesRemovedDuringTruncation'] : 0
    if (!READ.has(type)) {
      other.add(type)
      continue
    }
    const agentId = optStr(e, 'agentId')
    const parentCall = optStr(data, 'parentToolCallId')
    const subagent = agentId !== undefined || parentCall !== undefined
      ? { subagent: { ...(parentCall === undefined ? {} : { toolCallId: parentCall }), ...(agentId === undefined ? {} : { agentId }) } }
      : undefined
    const into = subagent === undefined ? history : sub
    const kind = subagent === undefined ? 'normal' : 'display'
    if (type === 'session.start') history.push(draft({ id: `${id}:session`, role: 'system', kind: 'metadata', ...when, metadata: { copilot: data } }))
    else if (type === 'session.model_change') model = optStr(data, 'newModel') ?? model
    else if (type === 'user.message' || type === 'system.message') {
      if (type === 'user.message') answerOpen(into, when)
      const extra: Record<string, unknown> = { ...subagent }
      const transformed = optStr(data, 'transformedContent')
      if (transformed !== undefined && transformed !== data['content']) {
        extra['transformedContent'] = transformed
        kept.add('transformedContent')
      }
      if (Array.isArray(data['attachments']) && data['attachments'].length > 0) {
        extra['attachments'] = data['attachments']
        kept.add('attachment', data['attachments'].length)
      }
      if (type === 'system.message' && data['role'] === 'developer') extra['role'] = 'developer'
      const content = optStr(data, 'content') ?? ''
      into.push(
        draft({
          id,
          role: type === 'user.message' ? 'user' : 'system',
          kind,
          parts: content === '' ? [] : [{ type: 'text', text: content }],
          ...when,
          metadata: extra,
        }),
      )
    } else if (type === 'assistant.reasoning') {
      const t = optStr(data, 'content') ?? ''
      if (t !== '') reasoning.push({ type: 'reasoning', text: t })
    } else if (type === 'assistant.message') {
      const parts: Part[] = [...reasoning]
      reasoning = []
      const thought = optStr(data, 'reasoningText')
      if (thought !== undefined && thought !== '' && !parts.some((p) => p.type === 'reasoning' && p.text === thought))
        parts.push({ type: 'reasoning', text: thought })
      const content = optStr(data, 'content') ?? ''
      if (content !== '') parts.push({ type: 'text', text: content })
      for (const r of Array.isArray(data['toolRequests']) ? data['toolRequests'].filter(isObject) : []) {
        const callId = optStr(r, 'toolCallId') ?? `${id}-${parts.length}`
        const name = optStr(r, 'name') ?? 'tool'
        parts.push({ type: 'tool_call', id: callId, name, arguments: argumentsOf(r['arguments']), status: 'complete' })
        open.set(callId, { name, into })
      }
      const extra: Record<string, unknown> = { ...subagent }
      for (const k of ['reasoningOpaque', 'encryptedContent', 'citations']) if (data[k] !== undefined) extra[k] = data[k]
      const m = optStr(data, 'model') ?? model
      into.push(
        draft({ id: optStr(data, 'messageId') ?? id, role: 'assistant', kind, parts, ...when, ...(m === undefined ? {} : { model: m }), metadata: extra }),
      )
    } else if (type === 'tool.execution_complete') {
      const callId = optStr(data, 'toolCallId') ?? id
      const call = open.get(callId)
      open.delete(callId)
      const result = isObject(data['result']) ? data['result'] : {}
      const error = isObject(data['error']) ? optStr(data['error'], 'message') : undefined
      const r = error === undefined ? resultContent(result) : { content: error, held: true }
      if (!r.held) noText++
      const extra: Record<string, unknown> = { ...subagent, ...(call === undefined ? { origin: 'no call' } : {}) }
      if (typeof result['detailedContent'] === 'string' && result['detailedContent'] !== result['content']) extra['detailedContent'] = result['detailedContent']
      if (call === undefined) orphans++
      ;(call?.into ?? into).push(
        draft({
          id,
          role: 'tool',
          // a result of no call the stream holds (a tool the user ran) is shown, not sent
          kind: call === undefined ? 'display' : kind,
          parts: [{
            type: 'tool_result',
            toolCallId: callId,
            ...(call === undefined ? {} : { name: call.name }),
            content: r.content,
            isError: data['success'] === false || error !== undefined || failed(result),
          }],
          ...when,
          metadata: extra,
        }),
      )
    } else if (type === 'session.compaction_complete') {
      const summary = optStr(data, 'summaryContent')
      if (data['success'] === false || summary === undefined || summary === '') other.add(`${type} without a summary`)
      else {
        answerOpen(history, when)
        const c = compactHistory(history, summary, [], when.createdAt)
        history = c.history
        archive = [...archive, ...c.archive]
      }
    }
  }
  answerOpen(history, {})
  answerOpen(sub, {})
  const notes: string[] = []
  if (noText > 0) notes.push(`${noText} tool result${noText === 1 ? '' : 's'} the stream holds no text of (only success), answered "${NO_RESULT}"`)
  if (unanswered > 0)
    notes.push(`${unanswered} tool call${unanswered === 1 ? '' : 's'} with no completion in the stream, answered "${NO_RESULT}" (synthetic tool messages)`)
  if (orphans > 0) notes.push(`${orphans} tool result${orphans === 1 ? '' : 's'} of no call in the stream kept as display messages (metadata.origin 'no call')`)
  if (sub.length > 0) notes.push(`${sub.length} messages of sub-agents read after the main agent's as display messages (metadata.subagent)`)
  if (kept.size() > 0) notes.push(`kept in metadata, not sent as parts: ${kept.text()}`)
  if (truncated > 0)
    notes.push(
      `the runtime truncated ${truncated} message${
        truncated === 1 ? '' : 's'
      } from what it sent (session.truncation, which names none): this history still holds them`,
    )
  if (other.size() > 0) notes.push(`events not part of the conversation: ${other.text()}`)
  return E.right(sessionRead({ messages: messagesOf([...history, ...sub]), archive, notes, skipped: read.right }))
}

/**
 * Whether a parsed line is an event of a Copilot session event stream: a dotted `type`
 * (`session.start`, `user.message`), a `data` object, an `id` and a `parentId` (null for the first).
 *
 * @example
 * import { isCopilotEvent } from 'chatfold/sessions'
 * isCopilotEvent({ type: 'session.start', data: { producer: 'copilot-agent' }, id: 'e1', timestamp: '2026-05-12T00:21:05.254Z', parentId: null }) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isCopilotEvent = (u: unknown): boolean =>
  isObject(u) && typeof u['type'] === 'string' && /^[a-z_]+\.[a-z_.]+$/.test(u['type']) && isObject(u['data']) && typeof u['id'] === 'string' &&
  'parentId' in u
