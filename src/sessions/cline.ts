/**
 * Cline, Roo Code and Kilo Code task folders read as a history: `api_conversation_history.json`
 * (the messages sent, in Anthropic's shape), with `ui_messages.json` beside it for times, model and
 * cost.
 *
 * Each message of the history is `{ role, content }` with Anthropic blocks; Cline adds `modelInfo`
 * (`modelId`, `providerId`, `mode`) and `metrics.tokens` (`prompt`, `completion`, `cached`) to a
 * reply, Roo Code and Kilo Code a `ts` (epoch milliseconds) to every message. A tool's result is a
 * `tool_result` block (native tool calls, in Cline with a `call_id`) or, in Cline's text protocol,
 * a user text block opening `[name for '…'] Result:` or `[name] Result:` after the reply that
 * called it: that block, whole, becomes the result of the call of that name (in order), in a tool
 * message before the user's other blocks. Thinking keeps its signature; images are kept, and an
 * image inside a `tool_result` (a `browser_action` screenshot) stays an image block of that
 * result. Roo Code's own entries: an OpenAI reasoning
 * item (`{ type: 'reasoning', summary, encrypted_content }`, no role) becomes a reasoning part of the
 * next reply, the item itself kept in its `metadata.reasoningItems`; messages a condensing or a
 * truncation took out (`condenseParent`, `truncationParent`) go to the archive; a condense summary
 * (`isSummary`) is a reply marked `metadata.condenseSummary`. A call left without a result (the task
 * ended on `attempt_completion`) gets the error result the tool itself sends when it resumes such a
 * task, "Task was interrupted before this tool call could be completed.", as a `synthetic` tool
 * message; a note says so.
 *
 * `ui_messages.json` (each `{ ts, type: 'say' | 'ask', say?, ask?, text?, conversationHistoryIndex? }`)
 * gives, by `conversationHistoryIndex` (the history's last index when the line was written): a user
 * message's time (the `api_req_started` line sending it) and a reply's time, model and cost
 * (`metadata.cost`, and the `api_req_started` token figures as `metadata.usage` when the reply has no
 * `metrics`). What else it holds (checkpoints, task progress, command output) is not part of the
 * conversation: a note counts it by kind.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Part } from '../message/part-model.ts'
import type { MessageUsage } from '../tokens/recorded-usage.ts'
import { isObject } from '../internal/object.ts'
import { assistantPart, imagePart, resultContent } from './_claude-code-records.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, fields, optNum, optStr, type Rec } from './_fields.ts'
import { type SessionRead } from './session-read.ts'

/**
 * The files of one task folder, parsed: `history` from `api_conversation_history.json`, and
 * `ui` from `ui_messages.json` when it is there.
 *
 * @example
 * import type { ClineTask } from 'chatfold/sessions'
 * const task: ClineTask = { history: [{ role: 'user', content: [{ type: 'text', text: '<task>\nHi\n</task>' }] }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ClineTask = { readonly history: unknown; readonly ui?: unknown }

const HISTORY = 'api_conversation_history.json'
/** What Cline and Roo Code answer for a call left without a result when they resume a task. */
const INTERRUPTED = 'Task was interrupted before this tool call could be completed.'
const UI = 'ui_messages.json'

/** The name of the tool a Cline result text answers (`[read_file for 'a.ts'] Result:` → `read_file`), or undefined. */
const resultHead = (text: string): string | undefined => /^\[([A-Za-z0-9_.:-]+)(?: for [^\n]*)?\] Result:/.exec(text)?.[1]

type Ui = { readonly ts: number; readonly kind: string; readonly index: number | undefined; readonly text: string | undefined; readonly model: Rec | undefined }

/** What `ui_messages.json` says of each history index: when it was sent or written, by which model, at what cost. */
type UiFacts = {
  readonly sentAt: Map<number, number>
  readonly firstAt: Map<number, number>
  readonly request: Map<number, Rec>
  readonly model: Map<number, Rec>
  readonly other: ReturnType<typeof counter>
}

const uiFacts = (ui: ReadonlyArray<Ui>): UiFacts => {
  const f: UiFacts = { sentAt: new Map(), firstAt: new Map(), request: new Map(), model: new Map(), other: counter() }
  for (const u of ui) {
    if (u.index === undefined) continue
    if (u.kind === 'say:api_req_started') {
      // the request sending history[index + 1], answered by history[index + 2]
      if (!f.sentAt.has(u.index + 1)) f.sentAt.set(u.index + 1, u.ts)
      try {
        const r: unknown = JSON.parse(u.text ?? '')
        if (isObject(r)) f.request.set(u.index + 2, r)
      } catch {
        // a request line without its figures
      }
      continue
    }
    // a line written while the reply history[index + 1] was streaming or after it
    if (!f.firstAt.has(u.index + 1)) f.firstAt.set(u.index + 1, u.ts)
    if (u.model !== undefined && !f.model.has(u.index + 1)) f.model.set(u.index + 1, u.model)
    if (
      ![
        'say:text',
        'say:reasoning',
        'say:tool',
        'say:completion_result',
        'say:user_feedback',
        'ask:followup',
        'ask:tool',
        'ask:completion_result',
        'ask:command',
        'say:command',
      ].includes(u.kind)
    ) f.other.add(u.kind)
  }
  return f
}

const usageOf = (metrics: unknown, request: Rec | undefined): MessageUsage | undefined => {
  const t = isObject(metrics) && isObject(metrics['tokens']) ? metrics['tokens'] : undefined
  if (t !== undefined) {
    const input = optNum(t, 'prompt')
    const output = optNum(t, 'completion')
    const cacheRead = optNum(t, 'cached')
    if (input !== undefined && output !== undefined) return { input, output, ...(cacheRead === undefined ? {} : { cacheRead }) }
  }
  if (request === undefined) return undefined
  const input = optNum(request, 'tokensIn')
  const output = optNum(request, 'tokensOut')
  const cacheRead = optNum(request, 'cacheReads')
  const cacheWrite = optNum(request, 'cacheWrites')
  return input === undefined || output === undefined
    ? undefined
    : { input, output, ...(cacheRead === undefined ? {} : { cacheRead }), ...(cacheWrite === undefined ? {} : { cacheWrite }) }
}

/** Whether Roo Code took a message out of the context (a condensing or a truncation names the message standing for it). */
const gone = (m: Rec): boolean => typeof m['condenseParent'] === 'string' || typeof m['truncationParent'] === 'string'

/**
 * Reads a Cline, Roo Code or Kilo Code task (see the module notes). Left: a history that is not an
 * array of `{ role, content }` messages, or a block that is not an object with a type, named by file
 * and path (`api_conversation_history.json[3].content`). Blocks of a type the reader does not know are
 * left out and counted in a note.
 *
 * @example
 * import { fromClineTask } from 'chatfold/sessions'
 * const r = fromClineTask({
 *   history: [
 *     { role: 'user', content: [{ type: 'text', text: '<task>\nSay hi\n</task>' }], ts: 1767603600000 },
 *     { role: 'assistant', content: [{ type: 'text', text: 'Hi!' }], ts: 1767603602000 },
 *   ],
 * })
 * // right({ messages: [user, assistant], archive: [], notes: [], skipped: [] })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromClineTask = (task: ClineTask): E.Either<DecodeFailure, SessionRead> => {
  const f = fields()
  const list = f.arr(task.history, HISTORY)
  if (list === undefined) return E.left(f.issues)
  const ui: Ui[] = []
  if (task.ui !== undefined) {
    const us = f.arr(task.ui, UI) ?? []
    us.forEach((u, i) => {
      const o = f.obj(u, `${UI}[${i}]`)
      const ts = o === undefined ? undefined : f.num(o, 'ts', `${UI}[${i}]`)
      if (o === undefined || ts === undefined) return
      ui.push({
        ts,
        kind: `${optStr(o, 'type') ?? '?'}:${optStr(o, 'say') ?? optStr(o, 'ask') ?? '?'}`,
        index: optNum(o, 'conversationHistoryIndex'),
        text: optStr(o, 'text'),
        model: isObject(o['modelInfo']) ? o['modelInfo'] : undefined,
      })
    })
  }
  const facts = uiFacts(ui)
  const notes: string[] = []
  const unknown = counter()
  const extras = counter()
  let summaries = 0
  const out: Draft[] = []
  const archived: Draft[] = []
  let reasoning: Rec[] = []
  let open: Array<{ id: string; name: string }> = []
  // a call left without a result is answered as the tool answers it when the task is resumed
  let interrupted = 0
  const closeOpen = (at: { readonly createdAt?: string }): void => {
    if (open.length === 0) return
    interrupted += open.length
    out.push(
      draft({
        id: `${out[out.length - 1]?.id ?? 'start'}.interrupted`,
        role: 'tool',
        kind: 'synthetic',
        parts: open.map((c): Part => ({ type: 'tool_result', toolCallId: c.id, name: c.name, content: INTERRUPTED, isError: true })),
        ...at,
        metadata: { origin: 'resume' },
      }),
    )
    open = []
  }
  list.forEach((u, i) => {
    const path = `${HISTORY}[${i}]`
    const m = f.obj(u, path)
    // Roo Code keeps an OpenAI reasoning item as an entry of its own, before the reply it belongs to
    if (m !== undefined && m['type'] === 'reasoning' && !('role' in m)) return void reasoning.push(m)
    const role = m === undefined ? undefined : f.str(m, 'role', path)
    if (m === undefined || role === undefined) return
    const c = m['content']
    const blocks: ReadonlyArray<unknown> | undefined = typeof c === 'string' ? [{ type: 'text', text: c }] : f.arr(c, `${path}.content`)
    if (blocks === undefined) return
    const id = `${HISTORY}#${i}`
    const when = at(optNum(m, 'ts') ?? (role === 'user' ? facts.sentAt.get(i) : facts.firstAt.get(i)))
    const valid = blocks.flatMap((b, k) => {
      const o = f.obj(b, `${path}.content[${k}]`)
      return o !== undefined && f.str(o, 'type', `${path}.content[${k}]`) !== undefined ? [o] : []
    })
    if (role === 'assistant') {
      closeOpen(when)
      const parts: Part[] = reasoning.map((r): Part => ({
        type: 'reasoning',
        text: Array.isArray(r['summary'])
          ? r['summary'].flatMap((x: unknown) => (isObject(x) && typeof x['text'] === 'string' ? [x['text']] : [])).join('\n')
          : (optStr(r, 'text') ?? ''),
      }))
      const items = reasoning
      reasoning = []
      for (const [k, b] of valid.entries()) {
        const p = assistantPart(b, `${id}-${k}`)
        if (p === undefined) {
          if (!(b['type'] === 'text' && typeof b['text'] === 'string' && b['text'].trim() === '')) unknown.add(`assistant ${String(b['type'])}`)
          continue
        }
        parts.push(p)
        for (const x of ['reasoning_details', 'summary', 'call_id'] as const) {
          const v = b[x]
          if (v !== undefined && !(Array.isArray(v) && v.length === 0) && v !== '') extras.add(`${String(b['type'])}.${x}`)
        }
      }
      const info = isObject(m['modelInfo']) ? m['modelInfo'] : facts.model.get(i)
      const request = facts.request.get(i)
      const usage = usageOf(m['metrics'], request)
      const cost = request === undefined ? undefined : optNum(request, 'cost')
      const mode = info === undefined ? undefined : optStr(info, 'mode')
      const summary = m['isSummary'] === true
      ;(gone(m) ? archived : out).push(
        draft({
          id,
          role: 'assistant',
          parts,
          ...when,
          model: info === undefined ? undefined : optStr(info, 'modelId'),
          provider: info === undefined ? undefined : optStr(info, 'providerId'),
          metadata: {
            ...(usage === undefined ? {} : { usage }),
            ...(cost === undefined ? {} : { cost }),
            ...(mode === undefined ? {} : { mode }),
            ...(items.length === 0 ? {} : { reasoningItems: items }),
            ...(summary ? { condenseSummary: true } : {}),
          },
        }),
      )
      if (summary) summaries++
      open = parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name }] : []))
      return
    }
    if (role !== 'user') return void f.fail(`${path}.role`, '"user" | "assistant"', role)
    const results: Part[] = []
    const parts: Part[] = []
    for (const [k, b] of valid.entries()) {
      if (b['type'] === 'tool_result') {
        const callId = typeof b['tool_use_id'] === 'string' ? b['tool_use_id'] : `${id}-${k}`
        const call = open.find((x) => x.id === callId)
        open = open.filter((x) => x !== call)
        results.push({
          type: 'tool_result',
          toolCallId: callId,
          ...(call === undefined ? {} : { name: call.name }),
          content: resultContent(b['content']),
          isError: b['is_error'] === true,
        })
      } else if (b['type'] === 'text' && typeof b['text'] === 'string') {
        const name = resultHead(b['text'])
        const call = name === undefined ? undefined : open.find((x) => x.name === name)
        if (call !== undefined) {
          open = open.filter((x) => x !== call)
          results.push({ type: 'tool_result', toolCallId: call.id, name: call.name, content: b['text'], isError: false })
        } else if (b['text'] !== '') parts.push({ type: 'text', text: b['text'] })
      } else if (b['type'] === 'image') {
        const p = imagePart(b)
        if (p === undefined) f.fail(`${path}.content[${k}].source`, 'a base64 or url image source', b['source'])
        else parts.push(p)
      } else unknown.add(`user ${String(b['type'])}`)
    }
    const to = gone(m) ? archived : out
    if (results.length > 0) to.push(draft({ id: `${id}.results`, role: 'tool', parts: results, ...when }))
    if (parts.length > 0) to.push(draft({ id, role: 'user', parts, ...when }))
  })
  if (f.issues.length > 0) return E.left(f.issues)
  const ending = open.map((x) => x.name)
  closeOpen({})
  if (interrupted > 0)
    notes.push(
      `${interrupted} tool call${interrupted === 1 ? '' : 's'} without a result${
        ending.length === 0 ? '' : ` (the task ends on ${ending.join(', ')})`
      } answered "${INTERRUPTED}", as the tool does when it resumes a task (synthetic tool messages, metadata.origin 'resume')`,
    )
  if (reasoning.length > 0) notes.push(`${reasoning.length} reasoning item${reasoning.length === 1 ? '' : 's'} after the last reply left out`)
  if (archived.length > 0)
    notes.push(`${archived.length} messages a condensing or truncation took out of the context (condenseParent, truncationParent) are in the archive`)
  if (summaries > 0) notes.push(`${summaries} condense summar${summaries === 1 ? 'y' : 'ies'} (isSummary) read as replies marked metadata.condenseSummary`)
  if (unknown.size() > 0) notes.push(`blocks of a type not read, left out: ${unknown.text()}`)
  if (extras.size() > 0) notes.push(`block fields not carried: ${extras.text()}`)
  if (facts.other.size() > 0) notes.push(`${UI} lines not part of the conversation: ${facts.other.text()}`)
  return E.right(sessionRead({ messages: messagesOf(out), archive: messagesOf(archived), notes, skipped: [] }))
}

/**
 * Whether a parsed `api_conversation_history.json` looks like a Cline, Roo Code or Kilo Code task
 * history: an array of `{ role, content }` messages where a reply carries Cline's `modelInfo` or
 * `metrics`, every message carries Roo Code's `ts`, or the first user text opens with `<task>`.
 *
 * @example
 * import { isClineHistory } from 'chatfold/sessions'
 * isClineHistory([{ role: 'user', content: [{ type: 'text', text: '<task>\nHi\n</task>' }] }]) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isClineHistory = (u: unknown): boolean => {
  if (!Array.isArray(u) || u.length === 0) return false
  const entries = u.filter((m: unknown) => !(isObject(m) && m['type'] === 'reasoning' && !('role' in m)))
  if (!entries.every((m: unknown) => isObject(m) && typeof m['role'] === 'string' && 'content' in m && !('parts' in m))) return false
  const ms = entries as ReadonlyArray<Rec>
  if (ms.some((m) => m['role'] === 'assistant' && (isObject(m['modelInfo']) || isObject(m['metrics'])))) return true
  if (ms.every((m) => typeof m['ts'] === 'number')) return true
  const first = ms[0]?.['content']
  const text = typeof first === 'string' ? first : Array.isArray(first) && isObject(first[0]) && typeof first[0]['text'] === 'string' ? first[0]['text'] : ''
  return /^\s*<(task|user_message)>/.test(text)
}
