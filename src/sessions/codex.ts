/**
 * OpenAI Codex CLI rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) read as a history.
 *
 * Each line is `{ timestamp, type, payload }`. `response_item` payloads are Responses API items:
 * messages (user text, assistant text, developer instructions), `reasoning` (summaries, raw text,
 * encrypted content), `function_call` / `function_call_output`, `custom_tool_call` /
 * `custom_tool_call_output` (freeform tools such as `apply_patch`), `local_shell_call` and
 * `web_search_call`. Items of one model reply become one assistant message; the outputs that follow
 * become one tool message. `session_meta` and `turn_context` records are kept as `metadata` messages
 * (the model of a reply is the latest `turn_context`'s), `event_msg` `token_count` usage goes to the
 * reply it counts, a `compacted` record replaces the history so far by its summary, or by its
 * `replacement_history` when it has one (the whole of what is sent from there on: an encrypted
 * `compaction` item is sent as it came, an empty summary is no turn, and the prompts from before are
 * not sent beside the replacement's own; what it replaced goes to the archive), and every other
 * record is counted in the notes. The older form of 2025
 * (a bare session line with `id` and `timestamp`, `{"record_type":"state"}` markers, and bare items
 * without timestamps) reads too.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { MessageUsage } from '../tokens/recorded-usage.ts'
import type { DecodeFailure } from '../message/failure.ts'
import type { Part, ToolResultBlock, ToolResultContent } from '../message/part-model.ts'
import type { Messages } from '../message/message.ts'
import { isObject } from '../internal/object.ts'
import { referenceOf } from '../adapters/openai/responses.ts'
import { compactHistory, replaceHistory } from './_compact.ts'
import { type Draft, draft, imageFromUrl, messagesOf, sessionRead } from './_draft.ts'
import { at, counter, fields, optNum, optStr, type Rec } from './_fields.ts'
import { injectedOrigin } from './_injected.ts'
import { eachLine, type Line } from './_lines.ts'
import { type SessionOptions, type SessionRead } from './session-read.ts'

/** The Responses items a rollout records, which the older form writes bare. */
const ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
])

/** Event messages that repeat a response item (the text a person typed, the reply, its reasoning). */
const ECHOES = new Set(['user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content', 'agent_reasoning_section_break'])

/** The usage of a `token_count` event's `last_token_usage`, with the cached tokens taken out of the input (see below). */
const usageOf = (u: Rec): MessageUsage | undefined => {
  const input = optNum(u, 'input_tokens')
  const output = optNum(u, 'output_tokens')
  if (input === undefined || output === undefined) return undefined
  const cacheRead = optNum(u, 'cached_input_tokens')
  const cacheWrite = optNum(u, 'cache_write_input_tokens')
  const reasoning = optNum(u, 'reasoning_output_tokens')
  // OpenAI counts cached tokens inside input_tokens; the usage contract keeps them apart, so that
  // input + cacheRead + cacheWrite is the prompt for every source
  const uncached = Math.max(0, input - (cacheRead ?? 0))
  return {
    input: uncached,
    output,
    ...(cacheRead === undefined ? {} : { cacheRead }),
    ...(cacheWrite === undefined ? {} : { cacheWrite }),
    ...(reasoning === undefined ? {} : { reasoning }),
  }
}

/** An `input_image` content item of a tool output as an image block (a data URL's bytes, or the URL). */
const imageItem = (i: unknown): ToolResultBlock | undefined => {
  if (!isObject(i) || i['type'] !== 'input_image' || typeof i['image_url'] !== 'string') return undefined
  const p = imageFromUrl(i['image_url'])
  return p.type === 'image' ? p : undefined
}

/**
 * A tool output: a string; content items (text joined, or with an `input_image` the items as
 * blocks, text and images in order; any other item kept aside); or `{ content, success }`.
 */
const outputOf = (u: unknown): { readonly content: ToolResultContent; readonly isError: boolean; readonly items?: ReadonlyArray<unknown> } | undefined => {
  if (typeof u === 'string') return { content: u, isError: false }
  if (Array.isArray(u)) {
    const texts = u.flatMap((i: unknown) => (isObject(i) && typeof i['text'] === 'string' ? [i['text']] : []))
    if (!u.some((i) => imageItem(i) !== undefined)) return { content: texts.join('\n'), isError: false, ...(texts.length === u.length ? {} : { items: u }) }
    const blocks: ToolResultBlock[] = []
    const others: unknown[] = []
    for (const i of u) {
      const image = imageItem(i)
      if (image !== undefined) blocks.push(image)
      else if (isObject(i) && typeof i['text'] === 'string') blocks.push({ type: 'text', text: i['text'] })
      else others.push(i)
    }
    return { content: blocks, isError: false, ...(others.length === 0 ? {} : { items: others }) }
  }
  if (isObject(u) && typeof u['content'] === 'string') return { content: u['content'], isError: u['success'] === false }
  return undefined
}

/**
 * Reads a Codex CLI rollout file. Left: the first line that is not JSON or not a rollout record (by
 * line and field), unless `badLines: 'skip'`, which lists such lines in `skipped` and reads the rest.
 *
 * Assistant messages carry `model` (from `turn_context`), `provider: 'openai'`, `createdAt`, and the
 * reply's `last_token_usage` as `metadata.usage`. Injected user text (`<environment_context>`,
 * `<user_instructions>`, AGENTS.md instructions) and developer messages are `synthetic` messages with
 * `metadata.origin`. A freeform tool call's input is kept as the arguments `{"input": …}`, and its
 * call id listed in the message's `metadata.codex.freeform`.
 *
 * @example
 * import { fromCodexRollout } from 'chatfold/sessions'
 * fromCodexRollout({})('{"timestamp":"2026-01-05T09:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi"}]}}')
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromCodexRollout = (options: SessionOptions = {}) => (text: string): E.Either<DecodeFailure, SessionRead> => {
  let history: Draft[] = []
  let archive: Messages = []
  const echoes: Array<{ readonly index: number; readonly draft: Draft }> = []
  let sawMessages = false
  const notes: string[] = []
  const events = counter()
  const echoed = counter()
  const kept = counter()
  const legacy = counter()
  let emptyCounts = 0
  let model: string | undefined
  let session = 'codex'
  // the reply being built, the tool message gathering its outputs, and the reply the next usage is for
  let reply: Draft | undefined
  let outputs: Draft | undefined
  let unmetered: Draft | undefined

  const idAt = (n: number, suffix = ''): string => `${session}:${n}${suffix}`
  const assistant = (n: number, ts: unknown): Draft => {
    if (reply === undefined) {
      reply = draft({ id: idAt(n), role: 'assistant', ...at(ts), ...(model === undefined ? {} : { model }), provider: 'openai' })
      history.push(reply)
      outputs = undefined
    }
    unmetered = reply
    return reply
  }
  const tool = (n: number, ts: unknown): Draft => {
    if (outputs === undefined) {
      outputs = draft({ id: idAt(n), role: 'tool', ...at(ts) })
      history.push(outputs)
      reply = undefined
    }
    return outputs
  }
  const standalone = (d: Draft): void => {
    reply = undefined
    outputs = undefined
    history.push(d)
  }
  const keep = (n: number, ts: unknown, what: string, record: Rec): void => {
    kept.add(what)
    history.push(draft({ id: idAt(n), role: 'system', kind: 'metadata', ...at(ts), metadata: { codex: record } }))
  }

  const item = (n: number, ts: unknown, p: Rec, path: string): DecodeFailure => {
    const f = fields()
    const sub = (k: string): string => (path === '' ? k : `${path}.${k}`)
    const type = f.str(p, 'type', path)
    if (type === undefined) return f.issues
    if (type === 'message') {
      const role = f.str(p, 'role', path)
      const content = f.arr(p['content'], sub('content'))
      if (role === undefined || content === undefined) return f.issues
      const parts: Part[] = []
      const other: unknown[] = []
      content.forEach((c, i) => {
        const x = f.obj(c, sub(`content[${i}]`))
        if (x === undefined) return
        if (typeof x['text'] === 'string' && (x['type'] === 'input_text' || x['type'] === 'output_text' || x['type'] === 'text'))
          parts.push({ type: 'text', text: x['text'] })
        else if (x['type'] === 'input_image' && typeof x['image_url'] === 'string') parts.push(imageFromUrl(x['image_url']))
        else other.push(c)
      })
      if (f.issues.length > 0) return f.issues
      sawMessages = true
      const extra = { ...(other.length === 0 ? {} : { content: other }), ...(typeof p['phase'] === 'string' ? { phase: p['phase'] } : {}) }
      if (other.length > 0) kept.add('message content items chatfold has no part for (in metadata.codex.content)')
      if (role === 'assistant') {
        const d = assistant(n, ts)
        d.parts.push(...parts)
        if (Object.keys(extra).length > 0) d.metadata['codex'] = { ...(d.metadata['codex'] as Rec | undefined), ...extra }
        return []
      }
      const first = parts.find((x) => x.type === 'text')
      const origin = first?.type === 'text' ? injectedOrigin(first.text) : undefined
      const system = role === 'developer' || role === 'system'
      const injected = origin ?? (system ? role : undefined)
      standalone(
        draft({
          id: idAt(n),
          role: system ? 'system' : 'user',
          ...(injected === undefined ? {} : { kind: 'synthetic' as const }),
          parts,
          ...at(ts),
          metadata: {
            ...(injected === undefined ? {} : { origin: injected }),
            ...(Object.keys(extra).length === 0 ? {} : { codex: extra }),
            // a developer message goes back to the Responses API as one, as a Responses body's does
            ...(role === 'developer' ? { providerFields: { openai: { item: { type: 'message', role: 'developer' } } } } : {}),
          },
        }),
      )
      return []
    }
    if (type === 'reasoning') {
      const summary = p['summary'] === undefined ? [] : f.arr(p['summary'], sub('summary'))
      if (summary === undefined) return f.issues
      const raw = Array.isArray(p['content']) ? p['content'] : []
      const texts = [...summary, ...raw].flatMap((s: unknown) => (isObject(s) && typeof s['text'] === 'string' ? [s['text']] : []))
      const encrypted = optStr(p, 'encrypted_content')
      // a rollout writes no id on its reasoning items: none is made up (one empty id on every item is a duplicate the API refuses)
      const id = optStr(p, 'id')
      const token = referenceOf(id === '' ? undefined : id, encrypted)
      const d = assistant(n, ts)
      if (texts.length === 0) d.parts.push({ type: 'reasoning', text: token, redacted: true })
      // the further summaries of an item without an id are marked as its own, so that it goes back as one item
      texts.forEach((t, j) =>
        d.parts.push({
          type: 'reasoning',
          text: t,
          signature: token,
          ...(j > 0 && id === undefined ? { providerFields: { openai: { continues: true } } } : {}),
        })
      )
      return []
    }
    if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
      const callId = type === 'local_shell_call' ? (optStr(p, 'call_id') ?? optStr(p, 'id')) : f.str(p, 'call_id', path)
      if (callId === undefined) return type === 'local_shell_call' ? [{ path: sub('call_id'), expected: 'string', actual: p['call_id'] }] : f.issues
      const name = type === 'local_shell_call' ? 'local_shell' : f.str(p, 'name', path)
      const args = type === 'function_call'
        ? f.str(p, 'arguments', path)
        : type === 'custom_tool_call'
        ? f.str(p, 'input', path)
        : JSON.stringify(p['action'] ?? null)
      if (name === undefined || args === undefined) return f.issues
      const d = assistant(n, ts)
      d.parts.push({ type: 'tool_call', id: callId, name, arguments: type === 'custom_tool_call' ? JSON.stringify({ input: args }) : args, status: 'pending' })
      if (type === 'custom_tool_call') {
        const codex = (d.metadata['codex'] as Rec | undefined) ?? {}
        d.metadata['codex'] = { ...codex, freeform: [...((codex['freeform'] as string[] | undefined) ?? []), callId] }
      }
      return []
    }
    if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      const callId = f.str(p, 'call_id', path)
      const out = outputOf(p['output'])
      if (out === undefined) f.fail(sub('output'), 'a string, content items, or { content, success }', p['output'])
      if (callId === undefined || out === undefined) return f.issues
      const d = tool(n, ts)
      d.parts.push({ type: 'tool_result', toolCallId: callId, content: out.content, isError: out.isError })
      if (out.items !== undefined) {
        kept.add('tool outputs with items other than text (in metadata.codex.outputs)')
        const codex = (d.metadata['codex'] as Rec | undefined) ?? {}
        d.metadata['codex'] = { ...codex, outputs: { ...(codex['outputs'] as Rec | undefined), [callId]: out.items } }
      }
      return []
    }
    if (type === 'web_search_call') {
      const action = isObject(p['action']) ? p['action'] : {}
      const what = optStr(action, 'query') ?? optStr(action, 'url') ?? optStr(action, 'type') ?? 'web search'
      kept.add('web searches (display messages)')
      // shown before the reply it happened in, so that the reply's calls stay next to their results
      const shown = draft({
        id: idAt(n),
        role: 'assistant',
        kind: 'display',
        parts: [{ type: 'text', text: `Web search: ${what}` }],
        ...at(ts),
        metadata: { codex: p },
      })
      const open = reply === undefined ? -1 : history.indexOf(reply)
      if (open < 0) history.push(shown)
      else history.splice(open, 0, shown)
      return []
    }
    if (type === 'compaction') {
      // an encrypted compaction item (what the model reads in place of the history it replaced): sent as it came
      assistant(n, ts).parts.push({ type: 'provider', provider: 'openai', kind: 'compaction', data: p })
      return []
    }
    keep(n, ts, `${type} items (metadata messages)`, { type: 'response_item', payload: p })
    return []
  }

  const take = ({ n, value }: Line): DecodeFailure => {
    const f = fields()
    const rec = f.obj(value, '')
    if (rec === undefined) return f.issues
    // the rollouts of 2025 before the { timestamp, type, payload } lines: a bare session line, state markers, bare items
    if (!('payload' in rec)) {
      if (rec['record_type'] === 'state') {
        legacy.add('state markers')
        return []
      }
      if (typeof rec['type'] === 'string' && ITEM_TYPES.has(rec['type'])) {
        legacy.add('bare response items')
        return item(n, undefined, rec, '')
      }
      if (typeof rec['id'] === 'string' && typeof rec['timestamp'] === 'string' && history.length === 0) {
        session = rec['id']
        legacy.add('bare session line')
        standalone(
          draft({ id: idAt(n), role: 'system', kind: 'metadata', ...at(rec['timestamp']), metadata: { codex: { type: 'session_meta', payload: rec } } }),
        )
        return []
      }
    }
    const type = f.str(rec, 'type', '')
    const payload = f.obj(rec['payload'], 'payload')
    if (type === undefined || payload === undefined) return f.issues
    const ts = rec['timestamp']
    if (type === 'response_item') return item(n, ts, payload, 'payload')
    if (type === 'session_meta') {
      const id = optStr(payload, 'id') ?? optStr(payload, 'session_id')
      if (id !== undefined && history.length === 0) session = id
      standalone(draft({ id: idAt(n), role: 'system', kind: 'metadata', ...at(ts), metadata: { codex: { type, payload } } }))
      return []
    }
    if (type === 'turn_context') {
      model = optStr(payload, 'model') ?? model
      standalone(draft({ id: idAt(n), role: 'system', kind: 'metadata', ...at(ts), metadata: { codex: { type, payload } } }))
      return []
    }
    if (type === 'compacted') {
      const message = f.str(payload, 'message', 'payload')
      const replacement = payload['replacement_history'] === undefined || payload['replacement_history'] === null
        ? []
        : f.arr(payload['replacement_history'], 'payload.replacement_history')
      if (message === undefined || replacement === undefined) return f.issues
      const before = history
      history = []
      reply = undefined
      outputs = undefined
      const failures = replacement.flatMap((
        u,
        i,
      ) => (isObject(u) ? item(n, ts, u, `payload.replacement_history[${i}]`) : [{ path: `payload.replacement_history[${i}]`, expected: 'object', actual: u }]))
      if (failures.length > 0) return failures
      const after = history.map((d, i) => ({ ...d, id: idAt(n, `.${i}`) }))
      const createdAt = typeof ts === 'string' ? ts : undefined
      // a replacement history is the whole of what is sent from here on (its own developer prompts and
      // its compaction item); without one, the summary message follows the leading system messages
      // the summary opens the replacement unless empty (a remote compaction's is: its compaction item holds it) or already in it
      const holds = message === '' || after.some((d) => d.parts.some((x) => x.type === 'text' && x.text.includes(message)))
      const summary = holds ? undefined : draft({ id: idAt(n), role: 'user', parts: [{ type: 'text', text: message }], ...at(ts) })
      const c = after.length > 0 ? replaceHistory(before, summary, after) : compactHistory(before, message, after, createdAt)
      history = c.history
      archive = [...archive, ...c.archive]
      reply = undefined
      outputs = undefined
      unmetered = undefined
      notes.push(
        after.length > 0
          ? `line ${n}: a compaction replaced ${c.archive.length} messages by its replacement history of ${after.length} (they are in the archive)`
          : `line ${n}: a compaction replaced ${c.archive.length} messages by its summary (they are in the archive)`,
      )
      return []
    }
    if (type === 'event_msg') {
      const kind = f.str(payload, 'type', 'payload')
      if (kind === undefined) return f.issues
      if (kind === 'token_count') {
        const info = payload['info']
        if (info === null || info === undefined) {
          emptyCounts++
          return []
        }
        const i = f.obj(info, 'payload.info')
        const last = i === undefined ? undefined : f.obj(i['last_token_usage'], 'payload.info.last_token_usage')
        if (i === undefined || last === undefined) return f.issues
        const usage = usageOf(last)
        if (usage !== undefined && unmetered !== undefined && unmetered.metadata['usage'] === undefined) {
          unmetered.metadata['usage'] = usage
          unmetered = undefined
        } else keep(n, ts, 'token counts with no reply of their own (metadata messages)', { type, payload })
        return []
      }
      if (ECHOES.has(kind)) {
        echoed.add(kind)
        const message = optStr(payload, kind === 'user_message' || kind === 'agent_message' ? 'message' : 'text')
        if (message !== undefined && (kind === 'user_message' || kind === 'agent_message'))
          echoes.push({
            index: history.length,
            draft: draft({
              id: idAt(n),
              role: kind === 'user_message' ? 'user' : 'assistant',
              parts: [{ type: 'text', text: message }],
              ...at(ts),
              ...(kind === 'agent_message' ? { provider: 'openai', ...(model === undefined ? {} : { model }) } : {}),
            }),
          })
        return []
      }
      events.add(kind)
      return []
    }
    keep(n, ts, `records of type ${type} (metadata messages)`, { type, payload })
    return []
  }

  const read = eachLine(text, options, take)
  if (E.isLeft(read)) return read
  if (!sawMessages && echoes.length > 0) {
    // a rollout with no message items: its event messages are the conversation
    for (const e of [...echoes].reverse()) history.splice(e.index, 0, e.draft)
    notes.push(`no message items: ${echoes.length} user and agent event messages read as the conversation`)
  } else if (echoed.size() > 0) notes.push(`event records that repeat response items, not kept twice: ${echoed.text()}`)
  if (events.size() > 0) notes.push(`event records not part of the conversation: ${events.text()}`)
  if (emptyCounts > 0) notes.push(`${emptyCounts} token_count events without usage`)
  if (kept.size() > 0) notes.push(`kept outside the conversation: ${kept.text()}`)
  if (legacy.size() > 0) notes.push(`the older rollout form (no timestamps on items, so replies have none): ${legacy.text()}`)
  return E.right(sessionRead({ messages: messagesOf(history), archive, notes, skipped: read.right }))
}
