/**
 * GitHub Copilot chat sessions of VS Code (`workspaceStorage/<hash>/chatSessions/<id>.json`, the
 * newer `.jsonl` journal of the same document, or the file "Chat: Export Chat…" saves) read as a
 * history.
 *
 * The session is `{ version, sessionId, creationDate, customTitle, requests }` (an export keeps
 * `initialLocation`, `responderUsername` and `requests`); the journal writes it as a first snapshot
 * (`kind: 0`, `v`) followed by sets (`kind: 1`, path `k`, value `v`) and appends (`kind: 2`, path
 * `k`, values `v`), which the reader applies in order. Each request is one turn:
 *
 * - `message.text` (a string `message` in older exports) is the user's message (`timestamp`);
 *   attached context (`variableData.variables`) is kept in `metadata.variables`.
 * - `result.metadata.toolCallRounds` are the model's rounds: each round's `response` text and
 *   `toolCalls` (`id`, `name`, `arguments`), after its `thinking.text` as reasoning, are an
 *   assistant message, followed by a tool message with the results
 *   `result.metadata.toolCallResults[id].content` holds (its `value`s; a `value` that is a rendered
 *   prompt tree `{ node }`, as sessions of 2025–2026 store, is read as the text of its pieces); a
 *   call with no result there is answered "(the session holds no result of this call)", and a note
 *   counts them. Without
 *   rounds, the `response` items are the reply: markdown `value`s as text, `thinking` items as
 *   reasoning; other items (tool invocations shown, references) are kept in `metadata.response` and
 *   counted.
 * - The reply's model is `result.metadata.resolvedModel` (else `modelId` without `copilot/`), its
 *   usage `promptTokens` / `outputTokens`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Part } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, fields, optNum, optStr, type Rec } from './_fields.ts'
import type { SessionRead } from './session-read.ts'

/** Applies the journal's operations in order: the document they build. */
const replay = (lines: ReadonlyArray<Rec>): unknown => {
  let doc: unknown = {}
  for (const op of lines) {
    if (op['kind'] === 0) {
      doc = structuredClone(op['v'])
      continue
    }
    const path = Array.isArray(op['k']) ? (op['k'] as ReadonlyArray<string | number>) : []
    if (path.length === 0) continue
    let at: unknown = doc
    for (const key of path.slice(0, -1)) {
      if (!isObject(at) && !Array.isArray(at)) break
      const next: unknown = (at as Record<string | number, unknown>)[key]
      if (next === undefined) (at as Record<string | number, unknown>)[key] = {}
      at = (at as Record<string | number, unknown>)[key]
    }
    const last = path[path.length - 1] as string | number
    if (!isObject(at) && !Array.isArray(at)) continue
    const target = at as Record<string | number, unknown>
    if (op['kind'] === 1) target[last] = op['v']
    else if (op['kind'] === 2)
      target[last] = [...(Array.isArray(target[last]) ? (target[last] as unknown[]) : []), ...(Array.isArray(op['v']) ? op['v'] : [op['v']])]
  }
  return doc
}

/**
 * The text of a rendered prompt tree (`{ node: { children: [...] } }`, what Copilot stores for a
 * tool result it built with prompt-tsx): the text pieces in order, a piece marked
 * `lineBreakBefore` on a new line.
 */
const treeText = (node: Rec): string => {
  let out = ''
  const walk = (n: Rec): void => {
    if (typeof n['text'] === 'string') {
      if (n['lineBreakBefore'] === true && out !== '' && !out.endsWith('\n')) out += '\n'
      out += n['text']
    }
    if (Array.isArray(n['children'])) { for (const c of n['children']) if (isObject(c)) walk(c) }
  }
  walk(node)
  return out
}

/** A tool result's content as text: its `value` strings, prompt trees as their text, anything else as JSON. */
const valuesOf = (u: unknown): string =>
  isObject(u) && Array.isArray(u['content'])
    ? u['content'].map((c: unknown) =>
      isObject(c) && typeof c['value'] === 'string'
        ? c['value']
        : isObject(c) && isObject(c['value']) && isObject(c['value']['node'])
        ? treeText(c['value']['node'])
        : JSON.stringify(c)
    ).join('\n')
    : JSON.stringify(u ?? null)

/**
 * Reads a Copilot chat session's text: the `.json` document, or the `.jsonl` journal of it (see
 * the module notes). Left: text that is neither, or a session without a `requests` array, named.
 *
 * @example
 * import { fromCopilotChatSession } from 'chatfold/sessions'
 * const r = fromCopilotChatSession(JSON.stringify({
 *   version: 3, sessionId: 's1', creationDate: 1767603600000,
 *   requests: [{ requestId: 'r1', timestamp: 1767603601000, message: { text: 'Hi' }, response: [{ value: 'Hello!' }], result: { metadata: {} } }],
 * }))
 * // right({ messages: [user, assistant], … })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromCopilotChatSession = (text: string): E.Either<DecodeFailure, SessionRead> => {
  const whole = parseJsonText(text.trim())
  let doc: unknown
  // a journal of one line (the snapshot alone) parses as one document
  if (E.isRight(whole)) doc = isObject(whole.right) && whole.right['kind'] === 0 && isObject(whole.right['v']) ? replay([whole.right]) : whole.right
  else {
    const ops: Rec[] = []
    const lines = text.split('\n')
    for (let i = 0; i < lines.length; i++) {
      const l = (lines[i] as string).trim()
      if (l === '') continue
      const v = parseJsonText(l)
      if (E.isLeft(v) || !isObject(v.right))
        return E.left([{ path: `line ${i + 1}`, expected: 'a journal operation ({ kind, k, v })', actual: E.isLeft(v) ? v.left : v.right }])
      ops.push(v.right)
    }
    doc = replay(ops)
  }
  const f = fields()
  const session = f.obj(doc, '')
  const requests = session === undefined ? undefined : f.arr(session['requests'], 'requests')
  if (session === undefined || requests === undefined) return E.left(f.issues)
  const out: Draft[] = []
  const other = counter()
  let unanswered = 0
  requests.forEach((u, i) => {
    const path = `requests[${i}]`
    const q = f.obj(u, path)
    if (q === undefined) return
    const id = optStr(q, 'requestId') ?? path
    const when = at(q['timestamp'])
    const message = isObject(q['message']) ? q['message'] : {}
    const vars = isObject(q['variableData']) && Array.isArray(q['variableData']['variables']) ? q['variableData']['variables'] : []
    out.push(
      draft({
        id,
        role: 'user',
        parts: [{ type: 'text', text: typeof q['message'] === 'string' ? q['message'] : (optStr(message, 'text') ?? '') }],
        ...when,
        metadata: vars.length === 0 ? {} : { variables: vars },
      }),
    )
    const result = isObject(q['result']) ? q['result'] : {}
    const meta = isObject(result['metadata']) ? result['metadata'] : {}
    const model = optStr(meta, 'resolvedModel') ?? optStr(q, 'modelId')?.replace(/^copilot\//, '')
    const results = isObject(meta['toolCallResults']) ? meta['toolCallResults'] : {}
    const rounds = Array.isArray(meta['toolCallRounds']) ? meta['toolCallRounds'].filter(isObject) : []
    const reply = (k: number, parts: Part[], extra: Record<string, unknown>): void =>
      void out.push(
        draft({ id: `${id}.${k}`, role: 'assistant', parts, ...when, ...(model === undefined ? {} : { model }), provider: 'github-copilot', metadata: extra }),
      )
    const response = Array.isArray(q['response']) ? q['response'].filter(isObject) : []
    const shown = response.filter((r) => r['kind'] !== undefined && r['kind'] !== 'thinking' && r['kind'] !== 'markdownContent')
    for (const r of shown) other.add(String(r['kind']))
    if (rounds.length === 0) {
      const parts: Part[] = response.flatMap((r): Part[] => {
        const v = typeof r['value'] === 'string'
          ? r['value']
          : isObject(r['content']) && typeof r['content']['value'] === 'string'
          ? r['content']['value']
          : undefined
        if (v === undefined || v === '') return []
        if (r['kind'] === 'thinking') return [{ type: 'reasoning', text: v }]
        return r['kind'] === undefined || r['kind'] === 'markdownContent' ? [{ type: 'text', text: v }] : []
      })
      reply(0, parts, { ...(shown.length === 0 ? {} : { response: shown }) })
    }
    rounds.forEach((round, k) => {
      const calls = Array.isArray(round['toolCalls']) ? round['toolCalls'].filter(isObject) : []
      const text = optStr(round, 'response') ?? ''
      const thinking = isObject(round['thinking']) ? optStr(round['thinking'], 'text') : undefined
      const parts: Part[] = [
        ...(thinking === undefined || thinking === '' ? [] : [{ type: 'reasoning' as const, text: thinking }]),
        ...(text === '' ? [] : [{ type: 'text' as const, text }]),
        ...calls.map((c, n): Part => ({
          type: 'tool_call',
          id: optStr(c, 'id') ?? `${id}.${k}.${n}`,
          name: optStr(c, 'name') ?? 'tool',
          arguments: optStr(c, 'arguments') ?? JSON.stringify(c['arguments'] ?? {}),
          status: 'complete',
        })),
      ]
      reply(k, parts, k === 0 && shown.length > 0 ? { response: shown } : {})
      const answers = parts.flatMap((p): Part[] => {
        if (p.type !== 'tool_call') return []
        const r = results[p.id]
        if (r === undefined) unanswered++
        return [{
          type: 'tool_result',
          toolCallId: p.id,
          name: p.name,
          content: r === undefined ? '(the session holds no result of this call)' : valuesOf(r),
          isError: false,
        }]
      })
      if (answers.length > 0) out.push(draft({ id: `${id}.${k}.results`, role: 'tool', parts: answers, ...when }))
    })
    const usage = optNum(meta, 'promptTokens') !== undefined && optNum(meta, 'outputTokens') !== undefined
      ? { input: optNum(meta, 'promptTokens') as number, output: optNum(meta, 'outputTokens') as number }
      : undefined
    const last = [...out].reverse().find((d) => d.role === 'assistant')
    if (last !== undefined && usage !== undefined) last.metadata['usage'] = usage
    if (last !== undefined && q['isCanceled'] === true) last.metadata['canceled'] = true
  })
  if (f.issues.length > 0) return E.left(f.issues)
  const notes: string[] = []
  if (unanswered > 0) notes.push(`${unanswered} tool call${unanswered === 1 ? '' : 's'} with no result in the session answered by a tool message saying so`)
  if (other.size() > 0) notes.push(`response items shown in the chat, not sent as text, kept in metadata.response: ${other.text()}`)
  return E.right(sessionRead({ messages: messagesOf(out), archive: [], notes, skipped: [] }))
}

/**
 * Whether a parsed document (or the first line of a journal) looks like a Copilot chat session: an
 * object with `requests`, `sessionId` and `version` (or `requesterUsername`), VS Code's "Chat:
 * Export Chat…" file (`requests`, `responderUsername`, `initialLocation`, no `sessionId`), or a
 * journal operation `{ kind: 0, v: { requests, … } }`.
 *
 * @example
 * import { isCopilotChatSession } from 'chatfold/sessions'
 * isCopilotChatSession({ version: 3, sessionId: 's1', requests: [] }) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isCopilotChatSession = (u: unknown): boolean =>
  isObject(u) &&
  ((Array.isArray(u['requests']) && typeof u['sessionId'] === 'string' && ('version' in u || 'requesterUsername' in u)) ||
    (Array.isArray(u['requests']) && typeof u['responderUsername'] === 'string' && typeof u['initialLocation'] === 'string') ||
    (u['kind'] === 0 && isObject(u['v']) && Array.isArray(u['v']['requests'])))
