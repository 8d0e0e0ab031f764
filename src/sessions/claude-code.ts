/**
 * Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`, and a sub-agent's
 * `<session>/subagents/agent-<id>.jsonl`) read as a history.
 *
 * Each line is one JSON record. Records of `type` `user` and `assistant` carry an Anthropic Messages
 * `message`; every record but a few bookkeeping ones has a `uuid` and a `parentUuid`, so the records
 * form a tree, not a list:
 *
 * - **The active branch.** The history read is the chain from the last leaf (the last user or
 *   assistant record that is not only tool results) up through `parentUuid` to the root. A `system`
 *   record with `subtype: 'compact_boundary'` has no parent; the chain goes on through its
 *   `logicalParentUuid` (or, when that record is not in the file, the last message record before the
 *   boundary). Progress, snapshot and other bookkeeping records on the chain are skipped and counted.
 * - **Other branches** (a rewind abandons the rest of a branch) are left out, and counted; with
 *   `branches: 'all'` each is read after the active history as `display` messages (never sent to a
 *   model) with `metadata.branch = { index, leaf, forkedFrom? }`: its number (1, 2, … in file order
 *   of its leaf), the uuid of its last record, and the id of the message of the active history (or an
 *   earlier branch) it forked from.
 * - **Tool results** are paired with their calls by `tool_use_id`, wherever they stand in the file:
 *   Claude Code writes a parallel call's result as a child of the record holding the call, so it can
 *   stand off the chain, or after the next assistant record. Each call is followed by its result (one
 *   on the chain first). Records of one reply (sharing `message.id`) become one assistant message.
 * - **Compaction.** The messages before the last compaction boundary are returned as `archive`; the
 *   history starts at the `isCompactSummary` user record, read as a chatfold compaction summary
 *   (`metadata.compaction = { summarised, through }`, see `isCompactionSummary`).
 * - **Sub-agents.** Sidechain records (`isSidechain: true`, in the same file or in an agent file
 *   passed along with it) are grouped by `agentId` (else by their root) and linked to the `Task` or
 *   `Agent` call that started them: by the result's `toolUseResult.agentId`, else by the first
 *   record's `parentUuid` (the record holding the call), else by the prompt text. With `subagents:
 *   'inline'` (the default) a run's messages follow the tool message answering its call, as
 *   `display` messages with `metadata.subagent = { toolCallId, agentId? }`; unlinked runs are skipped
 *   and counted. A run whose records are not given is read from the `agent_progress` progress
 *   records that mirror it into the session file (a mirror can lack records; a note says so). A
 *   file whose message records are all sidechain (an agent file on its own) reads as that
 *   conversation, `normal`.
 * - **Assistant messages** carry `model` (the record's `message.model`), `provider: 'anthropic'`,
 *   `createdAt` (the first record's `timestamp`) and `metadata.usage = { input, output, cacheRead?,
 *   cacheWrite?, cacheWrite1h? }` from `message.usage` of the reply's last record, as reported (`cacheWrite1h`: the
 *   part of the writes cached for an hour, from `cache_creation.ephemeral_1h_input_tokens`).
 *
 * **Injected user text** gets `metadata.origin` and a kind: `synthetic` when the model saw it (a
 * later assistant message exists on the branch), `display` when it never did (nothing answered it):
 *
 * | marker | origin |
 * | --- | --- |
 * | `<task-notification>…`, or `origin.kind: 'task-notification'` | `task-notification` |
 * | `<command-name>…` (a slash command such as `/exit`, `/model`) | `slash-command` |
 * | `<local-command-stdout>`, `<bash-input>`, `<bash-stdout>`, … | `local-command` |
 * | `[Request interrupted by user…]` | `interrupt` |
 * | `<system-reminder>…` | `system-reminder` |
 * | an `attachment` record's text (see below) | `attachment` |
 * | any other text of an `isMeta: true` record (caveats, skill bodies, hook context) | `meta` |
 *
 * A prompt the user typed while a reply was running, kept as an `attachment` record of type
 * `queued_command`, reads as a user message like any other. Any other attachment (the context
 * Claude Code puts into the prompt: hook output, a file edited outside, memory files) reads as an
 * injected user message with origin `attachment` and the attachment's other fields as
 * `metadata.attachment`; one that holds no text (a hook's success) is skipped and counted by type. A user record whose blocks have different origins becomes one message per run of blocks. The
 * assistant records Claude Code writes itself (model `<synthetic>`: an API error, "No response
 * requested.") are `display` messages (an API error's text also as the message's `error`).
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import { decodeIssue } from '../message/failure.ts'
import type { Message, Messages } from '../message/message.ts'
import { COMPACTION_KEY, isCompactionSummary } from '../message/compaction-mark.ts'
import { isObject } from '../internal/object.ts'
import { buildChain, type BuildContext, indexReplies, indexResults } from './_claude-code-build.ts'
import { decodeEntry, type Entry, isMessageEntry, isResultOnly } from './_claude-code-records.ts'
import { asSubagent, groupRuns, linkRun, mirroredRuns, placeRuns } from './_claude-code-runs.ts'

export type { ClaudeCodeOrigin } from './_claude-code-records.ts'

/**
 * How to read a session file: which branches (`'active'`, the default, or `'all'`), whether sub-agent
 * runs are read inline (the default) or left out, and, for records parsed from lines, each record's
 * line number (so failures name the line).
 *
 * @example
 * import { fromClaudeCode, type ClaudeCodeOptions } from 'chatfold/sessions'
 * const everything: ClaudeCodeOptions = { branches: 'all', subagents: 'inline' }
 * const read = fromClaudeCode(everything)
 *
 * @since 0.1.0
 * @category adapters
 */
export type ClaudeCodeOptions = {
  readonly branches?: 'active' | 'all'
  readonly subagents?: 'inline' | 'omit'
  readonly lineNumbers?: ReadonlyArray<number>
}

/**
 * What reading a session gave: the history (from the last compaction summary on), the messages a
 * compaction replaced (`archive`, in order), the compactions, branches and sub-agent runs found,
 * the records skipped by kind (`progress`, `file-history-snapshot`, `sidechain`, …), and notes for a
 * person.
 *
 * @example
 * import { fromClaudeCode, type ClaudeCodeSession } from 'chatfold/sessions'
 * import * as E from 'fp-ts/Either'
 * declare const text: string
 * const r = fromClaudeCode()(text)
 * if (E.isRight(r)) {
 *   const s: ClaudeCodeSession = r.right
 *   console.log(`${s.messages.length} messages, ${s.archive.length} archived by ${s.compactions.length} compactions`)
 * }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ClaudeCodeSession = {
  readonly messages: Messages
  readonly archive: Messages
  readonly compactions: ReadonlyArray<{ readonly trigger?: string; readonly preTokens?: number }>
  readonly branches: { readonly abandoned: number; readonly read: number }
  readonly subagents: ReadonlyArray<{ readonly toolCallId: string; readonly agentId?: string; readonly messages: number; readonly placed: boolean }>
  readonly skipped: Readonly<Record<string, number>>
  readonly notes: ReadonlyArray<string>
}

/**
 * Whether a parsed line looks like a Claude Code session record.
 *
 * @example
 * import { isClaudeCodeRecord } from 'chatfold/sessions'
 * isClaudeCodeRecord({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'Hi' } }) // true
 *
 * @since 0.1.0
 * @category adapters
 */
export const isClaudeCodeRecord = (u: unknown): boolean =>
  isObject(u) && typeof u['type'] === 'string' && ('sessionId' in u || 'uuid' in u || 'leafUuid' in u || 'parentUuid' in u) && !('parts' in u)

const lastWhere = <A>(xs: ReadonlyArray<A>, f: (a: A) => boolean): A | undefined => {
  for (let i = xs.length - 1; i >= 0; i--) if (f(xs[i] as A)) return xs[i]
  return undefined
}
const isLeafCandidate = (e: Entry): boolean => isMessageEntry(e) && !isResultOnly(e)
const int = (n: number): string => n.toLocaleString('en')

/** The chain from a record up to its root (or to a record in `stop`, included), in order. */
const chainTo = (leaf: Entry, byUuid: ReadonlyMap<string, Entry>, all: ReadonlyArray<Entry>, stop: ReadonlySet<number>): Entry[] => {
  const path: Entry[] = []
  const seen = new Set<number>()
  let e: Entry | undefined = leaf
  while (e !== undefined && !seen.has(e.index)) {
    seen.add(e.index)
    path.push(e)
    if (stop.has(e.index)) break
    let next: Entry | undefined = e.parent === undefined ? undefined : byUuid.get(e.parent)
    if (next === undefined && e.type === 'system' && e.subtype === 'compact_boundary') {
      const at: number = e.index
      next = (e.logicalParent === undefined ? undefined : byUuid.get(e.logicalParent)) ??
        lastWhere(all, (x: Entry): boolean => x.index < at && isLeafCandidate(x))
    }
    e = next
  }
  return path.reverse()
}

/**
 * The main records with their parent links mended: a record whose parent is not in the file (the
 * line holding it was skipped as bad, or the file was cut) follows the record before it in the file;
 * so does a message record with no `parentUuid` field, and every record of a file where no record
 * links to a parent (the Claude Code-shaped files other tools write). Records without a `uuid` are
 * given their place (`record-N`) so others can follow them. The note says how many were mended.
 */
const mendLinks = (entries: ReadonlyArray<Entry>, notes: string[]): Entry[] => {
  const known = new Set(entries.flatMap((e) => (e.uuid === undefined || e.sidechain ? [] : [e.uuid])))
  const unlinked = !entries.some((e) => !e.sidechain && isMessageEntry(e) && e.parent !== undefined)
  let dangling = 0
  let linear = 0
  let before: string | undefined
  const out = entries.map((e) => {
    if (e.sidechain) return e
    const uuid = e.uuid ?? (isMessageEntry(e) ? `record-${e.index + 1}` : undefined)
    let parent = e.parent
    const boundary = e.type === 'system' && e.subtype === 'compact_boundary'
    if (parent !== undefined && !known.has(parent) && before !== undefined) {
      parent = before
      dangling++
    } else if (parent === undefined && before !== undefined && !boundary && isMessageEntry(e) && (unlinked || !('parentUuid' in e.record))) {
      parent = before
      linear++
    }
    if (uuid !== undefined) before = uuid
    return parent === e.parent && uuid === e.uuid ? e : { ...e, uuid, parent }
  })
  if (dangling > 0)
    notes.push(
      `${dangling} record${
        dangling === 1 ? '' : 's'
      } whose parent is not in the file (a line skipped as bad, or a file cut short) read as following the record before ${dangling === 1 ? 'it' : 'them'}`,
    )
  if (linear > 0) notes.push(`${linear} message record${linear === 1 ? '' : 's'} without a parent link read in file order, as one conversation`)
  return out
}

const readEntries = (options: ClaudeCodeOptions, given: ReadonlyArray<Entry>): ClaudeCodeSession => {
  const notes: string[] = []
  const entries = mendLinks(given, notes)
  const skippedAt = new Map<string, { n: number; first: number }>()
  const skip = (why: string, at: number): void => {
    const s = skippedAt.get(why)
    if (s === undefined) skippedAt.set(why, { n: 1, first: at })
    else s.n++
  }
  const mainAll = entries.filter((e) => !e.sidechain)
  const standalone = !mainAll.some(isMessageEntry) && entries.some((e) => e.sidechain && isMessageEntry(e))
  const main = standalone ? entries : mainAll
  const side = standalone ? [] : entries.filter((e) => e.sidechain)
  const byUuid = new Map(main.flatMap((e) => (e.uuid === undefined ? [] : [[e.uuid, e] as const])))
  const ctx: BuildContext = { results: indexResults(main), replies: indexReplies(main), used: new Set(), consumed: new Set(), messageOf: new Map() }

  const leaf = lastWhere(main, isLeafCandidate) ?? lastWhere(main, isMessageEntry)
  const chain = leaf === undefined ? [] : chainTo(leaf, byUuid, main, new Set())
  const first = chain[0]
  if (first?.parent !== undefined && !byUuid.has(first.parent))
    notes.push(`the first record read (${first.where}) has a parent that is not in the file: the history starts there`)
  const active = buildChain(ctx, chain)

  // other branches: leaves with no message record below them, off the active chain
  const below = new Set<number>()
  for (let i = main.length - 1; i >= 0; i--) {
    const e = main[i] as Entry
    if ((isMessageEntry(e) || below.has(e.index)) && e.parent !== undefined) {
      const p = byUuid.get(e.parent)
      if (p !== undefined) below.add(p.index)
    }
  }
  const onActive = new Set(chain.map((e) => e.index))
  const leaves = main.filter((e) => isLeafCandidate(e) && !below.has(e.index) && !onActive.has(e.index) && !ctx.consumed.has(e.index))
  const branchMessages: Message[] = []
  if (options.branches === 'all') {
    const stop = new Set([...onActive, ...ctx.consumed])
    leaves.forEach((l, k) => {
      const path = chainTo(l, byUuid, main, stop)
      const fork = path[0] !== undefined && stop.has(path[0].index) ? path.shift() : undefined
      let at: Entry | undefined = fork
      while (at !== undefined && (at.uuid === undefined || !ctx.messageOf.has(at.uuid))) at = at.parent === undefined ? undefined : byUuid.get(at.parent)
      const forkedFrom = at?.uuid === undefined ? undefined : ctx.messageOf.get(at.uuid)
      for (const e of path) stop.add(e.index)
      const branch = { index: k + 1, leaf: l.uuid ?? l.where, ...(forkedFrom === undefined ? {} : { forkedFrom }) }
      for (const m of buildChain(ctx, path).messages) branchMessages.push({ ...m, kind: 'display', metadata: { ...m.metadata, branch } })
    })
    if (leaves.length > 0) notes.push(`${leaves.length} abandoned branch${leaves.length === 1 ? '' : 'es'} read after the active one, as display messages`)
  } else if (leaves.length > 0) notes.push(`${leaves.length} abandoned branch${leaves.length === 1 ? '' : 'es'} left out (--all-branches reads them)`)

  // sub-agent runs
  const runs = new Map<string, ReadonlyArray<Message>>()
  const subagents: Array<{ toolCallId: string; agentId?: string; messages: number; placed: boolean }> = []
  const allByUuid = new Map(entries.flatMap((e) => (e.uuid === undefined ? [] : [[e.uuid, e] as const])))
  const taken = new Set<string>()
  for (const run of groupRuns(side)) {
    const toolCallId = linkRun(run, entries, allByUuid, taken)
    if (toolCallId === undefined || taken.has(toolCallId)) {
      for (const e of run) skip('sidechain', e.index)
      continue
    }
    taken.add(toolCallId)
    const runByUuid = new Map(run.flatMap((e) => (e.uuid === undefined ? [] : [[e.uuid, e] as const])))
    const runLeaf = lastWhere(run, isLeafCandidate) ?? lastWhere(run, isMessageEntry)
    const runChain = runLeaf === undefined ? [] : chainTo(runLeaf, runByUuid, run, new Set())
    const agentId = run[0]?.agentId
    const ms = buildChain({ ...ctx, results: indexResults(run), replies: indexReplies(run) }, runChain).messages.map(asSubagent(toolCallId, agentId))
    runs.set(toolCallId, ms)
    subagents.push({ toolCallId, ...(agentId === undefined ? {} : { agentId }), messages: ms.length, placed: false })
  }

  // runs known only from the progress records that mirror them into the session file
  const mirrors = mirroredRuns(main, taken)
  for (const [toolCallId, run] of mirrors) {
    const agentId = run[0]?.agentId
    const ms = buildChain({ ...ctx, results: indexResults(run), replies: indexReplies(run) }, run).messages.map(asSubagent(toolCallId, agentId))
    runs.set(toolCallId, ms)
    subagents.push({ toolCallId, ...(agentId === undefined ? {} : { agentId }), messages: ms.length, placed: false })
    notes.push(
      `sub-agent ${
        agentId ?? toolCallId
      } read from the progress records mirroring it in the session file (its own transcript was not given; a mirror can lack records)`,
    )
  }

  // records read as nothing
  for (const e of main) {
    if (ctx.consumed.has(e.index) || (e.type === 'system' && e.subtype === 'compact_boundary' && onActive.has(e.index))) continue
    if (!isMessageEntry(e))
      skip(
        e.type === 'attachment' && isObject(e.record['attachment']) && typeof e.record['attachment']['type'] === 'string'
          ? `attachment (${e.record['attachment']['type']}, no text)`
          : e.type,
        e.index,
      )
    else if (options.branches !== 'all' && !onActive.has(e.index)) skip('abandoned branch', e.index)
    else if (isResultOnly(e)) skip('tool results without a call', e.index)
  }

  const last = active.boundaries[active.boundaries.length - 1]
  const splitAt = last === undefined ? undefined : active.messages[last.at]
  const placed = new Set<string>()
  const inline = options.subagents !== 'omit'
  const activeAll = inline ? placeRuns(active.messages, runs, placed) : [...active.messages]
  const branchAll = inline ? placeRuns(branchMessages, runs, placed) : branchMessages
  const cut = last === undefined ? 0 : splitAt === undefined ? activeAll.length : activeAll.indexOf(splitAt)
  const archive = activeAll.slice(0, cut)
  const kept = activeAll.slice(cut)
  const head = kept[0]
  const messages = head !== undefined && last !== undefined && isCompactionSummary(head)
    ? [
      {
        ...head,
        metadata: {
          ...head.metadata,
          [COMPACTION_KEY]: { summarised: archive.length, ...(archive.length === 0 ? {} : { through: (archive[archive.length - 1] as Message).id }) },
        },
      },
      ...kept.slice(1),
      ...branchAll,
    ]
    : [...kept, ...branchAll]
  for (const b of active.boundaries)
    notes.push(`compacted${b.trigger === undefined ? '' : ` (${b.trigger}${b.preTokens === undefined ? '' : `, ${int(b.preTokens)} tokens before`})`}`)
  if (last !== undefined) notes.push(`${int(archive.length)} messages before the last compaction summary are archived (--archive FILE writes them)`)
  // whitespace-only text of a reply (Claude Code writes one before a thinking block) is left out: no provider takes it
  const blank =
    entries.filter((e) => e.type === 'assistant').flatMap((e) =>
      e.blocks.filter((b) => b['type'] === 'text' && typeof b['text'] === 'string' && b['text'].trim() === '')
    ).length
  if (blank > 0) notes.push(`${blank} whitespace-only text block${blank === 1 ? '' : 's'} of replies left out (no provider takes one)`)
  const done = subagents.map((s) => ({ ...s, placed: placed.has(s.toolCallId) }))
  if (done.length > 0)
    notes.push(
      inline
        ? `${done.length} sub-agent run${done.length === 1 ? '' : 's'} read inline as display messages${
          done.some((s) => !s.placed) ? ` (${done.filter((s) => !s.placed).length} whose call is not in the history read left out)` : ''
        }`
        : `${done.length} sub-agent run${done.length === 1 ? '' : 's'} left out (--subagents inline reads them)`,
    )
  const skipped = Object.fromEntries([...skippedAt.entries()].sort((a, b) => a[1].first - b[1].first).map(([k, v]) => [k, v.n]))
  return {
    messages,
    archive,
    compactions: active.boundaries.map(({ at: _, ...b }) => b),
    branches: { abandoned: leaves.length, read: options.branches === 'all' ? leaves.length : 0 },
    subagents: done,
    skipped,
    notes,
  }
}

/**
 * Reads parsed Claude Code records (one per line of a session file, in file order, plus the records
 * of its sub-agents' files if wanted) as a history: see the module notes for what is read and how.
 * Left: a record that is not an object with a `type`, or a `user`/`assistant` record without a
 * message with content, named by its line (`lineNumbers`) or its index.
 *
 * @example
 * import { readClaudeCode } from 'chatfold/sessions'
 * const r = readClaudeCode({ branches: 'active' })([
 *   { type: 'user', uuid: 'u1', parentUuid: null, timestamp: '2026-01-01T00:00:00.000Z', message: { role: 'user', content: 'Hi' } },
 * ])
 * // right({ messages: [{ id: 'u1', role: 'user', kind: 'normal', … }], archive: [], … })
 *
 * @since 0.1.0
 * @category adapters
 */
export const readClaudeCode = (options: ClaudeCodeOptions = {}) => (records: ReadonlyArray<unknown>): E.Either<DecodeFailure, ClaudeCodeSession> => {
  const entries: Entry[] = []
  for (let i = 0; i < records.length; i++) {
    const n = options.lineNumbers?.[i]
    const e = decodeEntry(records[i], i, n === undefined ? `records[${i}]` : `line ${n}`)
    if (E.isLeft(e)) return e
    entries.push(e.right)
  }
  return E.right(readEntries(options, entries))
}

/**
 * Reads a Claude Code session file's text (JSON lines) as a history, as {@link readClaudeCode} does.
 * Left: the first line that is not JSON, or a record `readClaudeCode` refuses, by line number.
 *
 * @example
 * import { fromClaudeCode } from 'chatfold/sessions'
 * fromClaudeCode()('{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"Hi"}}')
 *
 * @since 0.1.0
 * @category adapters
 */
export const fromClaudeCode = (options: ClaudeCodeOptions = {}) => (text: string): E.Either<DecodeFailure, ClaudeCodeSession> => {
  const records: unknown[] = []
  const lineNumbers: number[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).trim()
    if (raw === '') continue
    try {
      records.push(JSON.parse(raw) as unknown)
    } catch (e) {
      return E.left(decodeIssue(`line ${i + 1}`, 'a JSON record', e instanceof Error ? e.message : String(e)))
    }
    lineNumbers.push(i + 1)
  }
  return readClaudeCode({ ...options, lineNumbers })(records)
}
