/**
 * pi coding agent sessions (`~/.pi/agent/sessions/--<path>--/<timestamp>_<uuid>.jsonl`) read as a
 * history.
 *
 * The first line is the session header (`type: 'session'`, `version`, `id`, `cwd`); every other
 * line an entry with `id`, `parentId` and `timestamp`, so the entries form a tree. The history is
 * the chain from the last entry (pi's leaf) up to the root, as pi builds the model's context. A
 * version 1 file (a header without `version`, entries without `id`) is read as pi migrates it:
 * each entry follows the one before it, a compaction's `firstKeptEntryIndex` (its place among the
 * file's lines) names its first kept entry, and a version 2 `hookMessage` reads as `custom`.
 *
 * - `message` entries: `user` (text, images), `assistant` (text, `thinking` with its
 *   `thinkingSignature`, `toolCall`; `provider`, `model`, `usage` with its `cost`, `stopReason`,
 *   `errorMessage`), `toolResult` (a tool message; an image in it, as a read of a PNG returns, an
 *   image block of the result), and pi's own: `bashExecution` (a command the user ran,
 *   `synthetic`, or `display` when `excludeFromContext`), `custom`, `branchSummary`,
 *   `compactionSummary` (injected user text, `synthetic`, with `metadata.origin`).
 * - As pi builds a request: a reply whose `stopReason` is `error` or `aborted` is a `display`
 *   message (pi does not send it, nor the calls it holds); a call with no result before the next
 *   turn (or at the end) is answered "No result provided", an error, in a `synthetic` tool message.
 * - `compaction`: its summary opens the history, followed by the messages from `firstKeptEntryId`
 *   on; what it replaced is the archive.
 * - `branch_summary` and `custom_message` entries: injected user text, as pi sends them.
 * - `model_change`, `thinking_level_change`, `custom`, `label`, `session_info`: not part of the
 *   conversation, counted in a note; entries off the chain (other branches) are counted too.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { Messages } from '../message/message.ts'
import type { Part, ToolResultBlock, ToolResultContent } from '../message/part-model.ts'
import { isObject } from '../internal/object.ts'
import { compactHistory } from './_compact.ts'
import { type Draft, draft, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, optNum, optStr, type Rec } from './_fields.ts'
import { eachLine } from './_lines.ts'
import type { SessionOptions, SessionRead } from './session-read.ts'

/** What pi answers a call with no result with when it builds a request. */
const NO_RESULT = 'No result provided'

type Entry = { readonly n: number; readonly id: string; readonly parent: string | undefined; readonly record: Rec }

const bytes = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))

/** Text and image blocks (or a string) as parts. */
const contentParts = (c: unknown): { readonly parts: Part[] } => {
  if (typeof c === 'string') return { parts: c === '' ? [] : [{ type: 'text', text: c }] }
  const parts: Part[] = []
  for (const b of Array.isArray(c) ? c.filter(isObject) : []) {
    if (b['type'] === 'text' && typeof b['text'] === 'string' && b['text'] !== '') parts.push({ type: 'text', text: b['text'] })
    else if (b['type'] === 'image' && typeof b['data'] === 'string')
      parts.push({ type: 'image', data: bytes(b['data']), ...(typeof b['mimeType'] === 'string' ? { mediaType: b['mimeType'] } : {}) })
  }
  return { parts }
}

/**
 * Reads a pi session file's text (JSON lines) as a history (see the module notes). Left: a line that
 * is not JSON, or an entry without `type` and `id`, named by line (`badLines: 'skip'` lists it
 * instead).
 *
 * @example
 * import { fromPiSession } from 'chatfold/sessions'
 * const r = fromPiSession()([
 *   '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-05T09:00:00.000Z","cwd":"/home/dev/app"}',
 *   '{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2026-01-05T09:00:01.000Z","message":{"role":"user","content":"Hi","timestamp":1767603601000}}',
 * ].join('\n'))
 * // right({ messages: [session metadata, user], … })
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromPiSession = (options: SessionOptions = {}) => (text: string): E.Either<DecodeFailure, SessionRead> => {
  let header: Rec | undefined
  const entries: Entry[] = []
  // version 1 names a compaction's first kept entry by its place among the file's lines (the header counted)
  const byIndex = new Map<number, string>()
  let lines = 0
  let unlinked = 0
  const read = eachLine(text, options, ({ n, value }) => {
    if (!isObject(value) || typeof value['type'] !== 'string')
      return [{ path: 'type', expected: 'a pi session entry', actual: isObject(value) ? value['type'] : value }]
    const index = lines++
    if (value['type'] === 'session') {
      header ??= value
      return []
    }
    // a version 1 file has no ids: each entry follows the one before it, as pi's own migration links them
    const v1 = header === undefined || header['version'] === undefined || header['version'] === 1
    const id = typeof value['id'] === 'string' ? value['id'] : v1 && !('id' in value) ? `line-${n}` : undefined
    if (id === undefined) return [{ path: 'id', expected: 'string', actual: value['id'] }]
    if (value['type'] === 'message' && !isObject(value['message'])) return [{ path: 'message', expected: 'object', actual: value['message'] }]
    const parent = typeof value['parentId'] === 'string' ? value['parentId'] : v1 && !('parentId' in value) ? entries[entries.length - 1]?.id : undefined
    byIndex.set(index, id)
    if (!('id' in value)) unlinked++
    entries.push({ n, id, parent, record: value })
    return []
  })
  if (E.isLeft(read)) return read
  const byId = new Map(entries.map((e) => [e.id, e]))
  const chain: Entry[] = []
  const seen = new Set<string>()
  for (
    let e: Entry | undefined = entries[entries.length - 1];
    e !== undefined && !seen.has(e.id);
    e = e.parent === undefined ? undefined : byId.get(e.parent)
  ) {
    seen.add(e.id)
    chain.unshift(e)
  }
  const notes: string[] = []
  const other = counter()
  let history: Draft[] = []
  let archive: Messages = []
  const draftOfEntry = new Map<string, number>()
  if (header !== undefined)
    history.push(
      draft({ id: `${optStr(header, 'id') ?? 'pi'}:session`, role: 'system', kind: 'metadata', ...at(header['timestamp']), metadata: { pi: header } }),
    )
  const injected = (e: Entry, text: string, origin: string, kind: 'synthetic' | 'display' = 'synthetic', extra: Record<string, unknown> = {}): void =>
    void history.push(draft({ id: e.id, role: 'user', kind, parts: [{ type: 'text', text }], ...at(e.record['timestamp']), metadata: { origin, ...extra } }))
  // what pi does when it builds a request: a call with no result before the next turn is answered
  // "No result provided" (an error), and a reply that ended in an error or was aborted is not sent
  let pending: Array<{ readonly id: string; readonly name: string }> = []
  const answered = new Set<string>()
  let noResult = 0
  let failed = 0
  const settle = (after: string): void => {
    const open = pending.filter((c) => !answered.has(c.id))
    if (open.length > 0) {
      noResult += open.length
      history.push(
        draft({
          id: `${after}.no-result`,
          role: 'tool',
          kind: 'synthetic',
          parts: open.map((c): Part => ({ type: 'tool_result', toolCallId: c.id, name: c.name, content: NO_RESULT, isError: true })),
          metadata: { origin: 'pi' },
        }),
      )
    }
    pending = []
    answered.clear()
  }
  for (const e of chain) {
    const r = e.record
    const when = at(r['timestamp'])
    const turn = r['type'] === 'message' && isObject(r['message']) ? r['message']['role'] : undefined
    if (turn === 'user' || turn === 'assistant') settle(e.id)
    draftOfEntry.set(e.id, history.length)
    if (r['type'] === 'compaction') {
      const summary = optStr(r, 'summary') ?? ''
      const firstKept = optStr(r, 'firstKeptEntryId') ?? byIndex.get(optNum(r, 'firstKeptEntryIndex') ?? -1)
      const cut = firstKept === undefined ? undefined : draftOfEntry.get(firstKept)
      const head = cut === undefined ? history : history.slice(0, cut)
      const kept = cut === undefined ? [] : history.slice(cut)
      const c = compactHistory(head, summary, kept, when.createdAt)
      history = c.history
      archive = [...archive, ...c.archive]
      const before = optNum(r, 'tokensBefore')
      notes.push(`compacted${before === undefined ? '' : ` (${before.toLocaleString('en')} tokens before)`}: ${c.archive.length} messages archived`)
      continue
    }
    if (r['type'] === 'branch_summary') {
      injected(e, optStr(r, 'summary') ?? '', 'branch-summary', 'synthetic', { fromId: r['fromId'] })
      continue
    }
    if (r['type'] === 'custom_message') {
      const { parts } = contentParts(r['content'])
      history.push(draft({ id: e.id, role: 'user', kind: 'synthetic', parts, ...when, metadata: { origin: 'custom', customType: r['customType'] } }))
      continue
    }
    if (r['type'] !== 'message') {
      other.add(String(r['type']))
      continue
    }
    const m = r['message'] as Rec
    const role = optStr(m, 'role')
    if (role === 'user') {
      const { parts } = contentParts(m['content'])
      history.push(draft({ id: e.id, role: 'user', parts, ...when }))
    } else if (role === 'assistant') {
      const parts: Part[] = []
      for (const b of Array.isArray(m['content']) ? m['content'].filter(isObject) : []) {
        if (b['type'] === 'text' && typeof b['text'] === 'string' && b['text'].trim() !== '') parts.push({ type: 'text', text: b['text'] })
        else if (b['type'] === 'thinking') {
          const signature = optStr(b, 'thinkingSignature')
          parts.push({ type: 'reasoning', text: optStr(b, 'thinking') ?? '', ...(signature === undefined || signature === '' ? {} : { signature }) })
        } else if (b['type'] === 'toolCall')
          parts.push({
            type: 'tool_call',
            id: optStr(b, 'id') ?? `${e.id}-${parts.length}`,
            name: optStr(b, 'name') ?? 'tool',
            arguments: JSON.stringify(b['arguments'] ?? {}),
            status: 'complete',
          })
        else other.add(`assistant ${String(b['type'])} block`)
      }
      const u = isObject(m['usage']) ? m['usage'] : undefined
      const input = u === undefined ? undefined : optNum(u, 'input')
      const output = u === undefined ? undefined : optNum(u, 'output')
      const usage = input === undefined || output === undefined || u === undefined ? undefined : {
        input,
        output,
        ...(optNum(u, 'cacheRead') === undefined ? {} : { cacheRead: optNum(u, 'cacheRead') }),
        ...(optNum(u, 'cacheWrite') === undefined ? {} : { cacheWrite: optNum(u, 'cacheWrite') }),
      }
      const cost = u !== undefined && isObject(u['cost']) ? optNum(u['cost'], 'total') : undefined
      const stop = optStr(m, 'stopReason')
      const unsent = stop === 'error' || stop === 'aborted'
      if (unsent) failed++
      else pending = parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name }] : []))
      const d = draft({
        id: e.id,
        role: 'assistant',
        ...(unsent ? { kind: 'display' as const } : {}),
        parts: [...parts, ...(stop === undefined ? [] : [{ type: 'finish' as const, reason: stop }])],
        ...when,
        model: optStr(m, 'model'),
        provider: optStr(m, 'provider'),
        metadata: {
          ...(usage === undefined ? {} : { usage }),
          ...(cost === undefined ? {} : { cost }),
          ...(typeof m['api'] === 'string' ? { api: m['api'] } : {}),
        },
      })
      d.error = optStr(m, 'errorMessage')
      history.push(d)
    } else if (role === 'toolResult') {
      const resultOf = optStr(m, 'toolCallId') ?? e.id
      answered.add(resultOf)
      const { parts } = contentParts(m['content'])
      const blocks = parts.flatMap((p): ToolResultBlock[] => (p.type === 'text' || p.type === 'image' ? [p] : []))
      // text as it always was; a result holding an image (a read of a PNG) keeps its blocks in order
      const content: ToolResultContent = blocks.some((b) => b.type === 'image') ? blocks : blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n')
      history.push(
        draft({
          id: e.id,
          role: 'tool',
          parts: [{
            type: 'tool_result',
            toolCallId: resultOf,
            ...(typeof m['toolName'] === 'string' ? { name: m['toolName'] } : {}),
            content,
            isError: m['isError'] === true,
          }],
          ...when,
          ...(m['details'] === undefined ? {} : { metadata: { details: m['details'] } }),
        }),
      )
    } else if (role === 'bashExecution') {
      const text = `$ ${optStr(m, 'command') ?? ''}\n${optStr(m, 'output') ?? ''}${
        typeof m['exitCode'] === 'number' && m['exitCode'] !== 0 ? `\n(exit ${m['exitCode']})` : ''
      }`
      injected(e, text, 'bash-execution', m['excludeFromContext'] === true ? 'display' : 'synthetic')
    } else if (role === 'custom' || role === 'hookMessage') {
      const { parts } = contentParts(m['content'])
      history.push(draft({ id: e.id, role: 'user', kind: 'synthetic', parts, ...when, metadata: { origin: 'custom', customType: m['customType'] } }))
    } else if (role === 'branchSummary' || role === 'compactionSummary')
      injected(e, optStr(m, 'summary') ?? '', role === 'branchSummary' ? 'branch-summary' : 'compaction-summary')
    else other.add(`message role ${String(role)}`)
  }
  settle(chain[chain.length - 1]?.id ?? 'pi')
  if (failed > 0)
    notes.push(
      `${failed} repl${failed === 1 ? 'y' : 'ies'} that ended in an error or ${
        failed === 1 ? 'was' : 'were'
      } aborted (stopReason) kept as display messages: pi does not send them`,
    )
  if (noResult > 0)
    notes.push(
      `${noResult} tool call${
        noResult === 1 ? '' : 's'
      } with no result answered "${NO_RESULT}" (an error), as pi does when it builds the next request (synthetic tool messages, metadata.origin 'pi')`,
    )
  const off = entries.length - chain.length
  if (unlinked > 0) notes.push(`a version 1 session: its ${unlinked} entries have no ids and follow one another in file order`)
  if (off > 0) notes.push(`${off} entr${off === 1 ? 'y' : 'ies'} on other branches of the session tree left out`)
  if (other.size() > 0) notes.push(`entries not part of the conversation: ${other.text()}`)
  return E.right(sessionRead({ messages: messagesOf(history), archive, notes, skipped: read.right }))
}

/**
 * Whether a parsed line looks like a pi session line: the header (`type: 'session'` with `cwd`,
 * `timestamp` and `version`, or `id` in a version 1 file) or an entry (`type`, `id`, `parentId`,
 * `timestamp`). A dotted `type` (`session.start`, `user.message`: the event stream GitHub Copilot
 * writes) is not pi's.
 *
 * @example
 * import { isPiSessionLine } from 'chatfold/sessions'
 * isPiSessionLine({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-05T09:00:00.000Z', cwd: '/app' }) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isPiSessionLine = (u: unknown): boolean =>
  isObject(u) &&
  ((u['type'] === 'session' && ('version' in u || typeof u['id'] === 'string') && typeof u['cwd'] === 'string' && typeof u['timestamp'] === 'string') ||
    (typeof u['type'] === 'string' && !u['type'].includes('.') && typeof u['id'] === 'string' && 'parentId' in u && typeof u['timestamp'] === 'string' &&
      !('uuid' in u)))
