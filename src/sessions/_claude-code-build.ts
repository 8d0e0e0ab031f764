/**
 * Turns a chain of Claude Code entries (one branch of the record tree, in order) into chatfold
 * messages. Private to the Claude Code reader (`claude-code.ts`), whose module notes describe the
 * result.
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import type { Part } from '../message/part-model.ts'
import { COMPACTION_KEY } from '../message/compaction-mark.ts'
import { isObject } from '../internal/object.ts'
import { assistantPart, type ClaudeCodeOrigin, createdAtOf, type Entry, imagePart, originOf, resultContent, usageOf } from './_claude-code-records.ts'

type Rec = Readonly<Record<string, unknown>>

/** A tool result block: the entry holding it and the block's place among the entry's blocks. */
export type ResultAt = { readonly entry: Entry; readonly block: number }

/** What every build of one file shares: the results by call id, and what has been placed so far. */
export type BuildContext = {
  /** Every tool result of the conversation's records, by `tool_use_id`, in file order. */
  readonly results: ReadonlyMap<string, ReadonlyArray<ResultAt>>
  /** Result blocks already placed (`index:block`). */
  readonly used: Set<string>
  /** Entries (by index) turned into messages. */
  readonly consumed: Set<number>
  /** The message id each record (by uuid) went into. */
  readonly messageOf: Map<string, string>
  /** The assistant records of each reply, by `message.id`, in file order. */
  readonly replies: ReadonlyMap<string, ReadonlyArray<Entry>>
}

/** A compaction boundary met on the chain: where it stands in the messages, and what Claude Code recorded. */
export type Boundary = { readonly at: number; readonly trigger?: string; readonly preTokens?: number }

/** The messages of one chain, and the compaction boundaries met on it. */
export type Built = { readonly messages: ReadonlyArray<Message>; readonly boundaries: ReadonlyArray<Boundary> }

/** The assistant entries of each reply, by `message.id`, in file order. */
export const indexReplies = (entries: ReadonlyArray<Entry>): Map<string, Entry[]> => {
  const out = new Map<string, Entry[]>()
  for (const e of entries) {
    const id = e.type === 'assistant' ? e.message?.['id'] : undefined
    if (typeof id !== 'string') continue
    const list = out.get(id)
    if (list === undefined) out.set(id, [e])
    else list.push(e)
  }
  return out
}

/** An index of every tool result block among entries, by call id. */
export const indexResults = (entries: ReadonlyArray<Entry>): Map<string, ResultAt[]> => {
  const out = new Map<string, ResultAt[]>()
  for (const entry of entries) {
    if (entry.type !== 'user') continue
    entry.blocks.forEach((b, block) => {
      if (b['type'] !== 'tool_result' || typeof b['tool_use_id'] !== 'string') return
      const list = out.get(b['tool_use_id'])
      if (list === undefined) out.set(b['tool_use_id'], [{ entry, block }])
      else list.push({ entry, block })
    })
  }
  return out
}

const key = (r: ResultAt): string => `${r.entry.index}:${r.block}`
const idOf = (e: Entry): string => e.uuid ?? `record-${e.index + 1}`

const toolMessage = (r: ResultAt, name: string | undefined): Message => {
  const b = r.entry.blocks[r.block] as Rec
  const k = r.entry.blocks.slice(0, r.block).filter((x) => x['type'] === 'tool_result').length
  return {
    id: k === 0 ? idOf(r.entry) : `${idOf(r.entry)}.${k}`,
    role: 'tool',
    kind: 'normal',
    parts: [{
      type: 'tool_result',
      toolCallId: String(b['tool_use_id']),
      ...(name === undefined ? {} : { name }),
      content: resultContent(b['content']),
      isError: b['is_error'] === true,
    }],
    ...createdAtOf(r.entry),
  }
}

/** A user entry's blocks other than tool results, grouped into messages by who put them there. */
const userMessages = (e: Entry): Message[] => {
  const groups: Array<{ origin: ClaudeCodeOrigin | undefined; parts: Part[] }> = []
  for (const b of e.blocks) {
    let part: Part | undefined
    let origin: ClaudeCodeOrigin | undefined
    if (b['type'] === 'text' && typeof b['text'] === 'string' && b['text'] !== '') {
      part = { type: 'text', text: b['text'] }
      origin = originOf(e, b['text'])
    } else if (b['type'] === 'image') {
      part = imagePart(b)
      origin = e.meta ? 'meta' : undefined
    }
    if (part === undefined) continue
    const open = groups[groups.length - 1]
    if (open !== undefined && open.origin === origin) open.parts.push(part)
    else groups.push({ origin, parts: [part] })
  }
  return groups.map((g, k) => ({
    id: k === 0 ? idOf(e) : `${idOf(e)}.u${k}`,
    role: 'user',
    kind: g.origin === undefined ? 'normal' : 'synthetic',
    parts: g.parts,
    ...createdAtOf(e),
    ...(g.origin === undefined
      ? {}
      : { metadata: { origin: g.origin, ...(g.origin === 'attachment' && e.attachment !== undefined ? { attachment: e.attachment } : {}) } }),
  }))
}

/** The model Claude Code names on the assistant records it writes itself. */
const SYNTHETIC_MODEL = '<synthetic>'
const textOf = (ps: ReadonlyArray<Part>): string => ps.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')

type Reply = { id: string; msgId: string | undefined; parts: Part[]; first: Entry; last: Entry }

/**
 * Builds the messages of a chain. Records of one reply (sharing `message.id`) merge into one
 * assistant message, wherever results stand between them; each call is followed by its result,
 * found by call id anywhere in the file (one on the chain first); user content that arrives while a
 * reply is open follows the reply's results. Injected text after the chain's last assistant message
 * was never sent, so it is `display` rather than `synthetic`.
 */
export const buildChain = (ctx: BuildContext, chain: ReadonlyArray<Entry>): Built => {
  const out: Message[] = []
  const boundaries: Boundary[] = []
  const onChain = new Set(chain.map((e) => e.index))
  const placedCalls = new Set<string>()
  const openCalls = new Set<string>()
  let reply: Reply | undefined
  let queued: Message[] = []

  const take = (id: string): ResultAt | undefined => {
    const free = (ctx.results.get(id) ?? []).filter((r) => !ctx.used.has(key(r)))
    const pick = free.find((r) => onChain.has(r.entry.index)) ?? free[0]
    if (pick === undefined) return undefined
    ctx.used.add(key(pick))
    ctx.consumed.add(pick.entry.index)
    if (pick.entry.uuid !== undefined && !ctx.messageOf.has(pick.entry.uuid)) ctx.messageOf.set(pick.entry.uuid, toolMessage(pick, undefined).id)
    return pick
  }
  const flush = (): void => {
    if (reply !== undefined) {
      const stop = reply.last.message?.['stop_reason']
      const model = reply.first.message?.['model']
      const usage = usageOf(reply.last.message)
      // Claude Code's own stand-in replies (API errors, "No response requested.") carry the model
      // `<synthetic>`: the model never wrote them, and they are not sent back to it
      const standIn = model === SYNTHETIC_MODEL
      const error = standIn && reply.first.record['isApiErrorMessage'] === true ? { error: textOf(reply.parts) } : {}
      out.push({
        id: reply.id,
        role: 'assistant',
        kind: standIn ? 'display' : 'normal',
        ...error,
        parts: [...reply.parts, ...(typeof stop === 'string' ? [{ type: 'finish' as const, reason: stop }] : [])],
        ...createdAtOf(reply.first),
        ...(typeof model === 'string' ? { model } : {}),
        provider: 'anthropic',
        ...(usage === undefined ? {} : { metadata: { usage } }),
      })
      for (const p of reply.parts) {
        if (p.type !== 'tool_call') continue
        openCalls.delete(p.id)
        placedCalls.add(p.id)
        const r = take(p.id)
        if (r !== undefined) out.push(toolMessage(r, p.name))
      }
      reply = undefined
    }
    out.push(...queued)
    queued = []
  }

  for (const e of chain) {
    if (e.type === 'assistant') {
      const msgId = e.message?.['id']
      ctx.consumed.add(e.index)
      if (reply !== undefined && typeof msgId === 'string' && reply.msgId === msgId) continue
      flush()
      // every record of the reply, on the chain or not: a parallel call's record can hang off the chain
      const group = (typeof msgId === 'string' ? ctx.replies.get(msgId) : undefined) ?? [e]
      const parts = group.flatMap((g) => g.blocks.flatMap((b, i) => assistantPart(b, `${idOf(g)}-${i}`) ?? []))
      for (const p of parts) if (p.type === 'tool_call') openCalls.add(p.id)
      const first = group[0] as Entry
      reply = { id: idOf(first), msgId: typeof msgId === 'string' ? msgId : undefined, parts, first, last: group[group.length - 1] as Entry }
      for (const g of group) {
        ctx.consumed.add(g.index)
        if (g.uuid !== undefined) ctx.messageOf.set(g.uuid, reply.id)
      }
    } else if (e.type === 'user') {
      ctx.consumed.add(e.index)
      if (e.compactSummary) {
        flush()
        const last = out[out.length - 1]
        out.push({
          id: idOf(e),
          role: 'user',
          kind: 'normal',
          parts: e.blocks.flatMap((b) => (b['type'] === 'text' && typeof b['text'] === 'string' ? [{ type: 'text' as const, text: b['text'] }] : [])),
          ...createdAtOf(e),
          metadata: { [COMPACTION_KEY]: { summarised: out.length, ...(last === undefined ? {} : { through: last.id }) } },
        })
        if (e.uuid !== undefined) ctx.messageOf.set(e.uuid, idOf(e))
        continue
      }
      const strays: Message[] = []
      e.blocks.forEach((b, block) => {
        if (b['type'] !== 'tool_result') return
        const r = { entry: e, block }
        const id = String(b['tool_use_id'])
        if (ctx.used.has(key(r)) || (openCalls.has(id) && !placedCalls.has(id))) return
        // a result with no call before it on the chain, or a second result of a placed call: kept where it stands
        ctx.used.add(key(r))
        strays.push(toolMessage(r, undefined))
      })
      const users = userMessages(e)
      if (e.uuid !== undefined && !ctx.messageOf.has(e.uuid)) {
        const first = users[0] ?? strays[0]
        if (first !== undefined) ctx.messageOf.set(e.uuid, first.id)
      }
      if (reply !== undefined) queued.push(...strays, ...users)
      else out.push(...strays, ...users)
    } else if (e.type === 'system' && e.subtype === 'compact_boundary') {
      flush()
      const m = e.record['compactMetadata']
      const trigger = isObject(m) && typeof m['trigger'] === 'string' ? m['trigger'] : undefined
      const preTokens = isObject(m) && typeof m['preTokens'] === 'number' ? m['preTokens'] : undefined
      boundaries.push({ at: out.length, ...(trigger === undefined ? {} : { trigger }), ...(preTokens === undefined ? {} : { preTokens }) })
    }
  }
  flush()
  let lastAssistant = -1
  out.forEach((m, i) => void (m.role === 'assistant' && m.kind === 'normal' && (lastAssistant = i)))
  const messages = out.map((
    m,
    i,
  ) => (i > lastAssistant && m.kind === 'synthetic' && m.metadata?.['origin'] !== undefined ? { ...m, kind: 'display' as const } : m))
  return { messages, boundaries }
}
