/**
 * Sub-agent runs of a Claude Code session: grouping sidechain records into runs, linking each run to
 * the `Task`/`Agent` call that started it, reading a run from the progress records that mirror it,
 * and placing runs after their calls' results. Private to the Claude Code reader (`claude-code.ts`),
 * whose module notes describe the result.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Message } from '../message/message.ts'
import { isObject } from '../internal/object.ts'
import { callsOf, decodeEntry, type Entry, isAgentTool, isMessageEntry } from './_claude-code-records.ts'

/** Sidechain entries grouped into runs: by `agentId`, else by the root of their parent chain. */
export const groupRuns = (side: ReadonlyArray<Entry>): Entry[][] => {
  const byUuid = new Map(side.flatMap((e) => (e.uuid === undefined ? [] : [[e.uuid, e] as const])))
  const rootOf = new Map<number, number>()
  const root = (e: Entry): number => {
    const known = rootOf.get(e.index)
    if (known !== undefined) return known
    const p = e.parent === undefined ? undefined : byUuid.get(e.parent)
    rootOf.set(e.index, e.index) // a cycle ends here
    const r = p === undefined || p.index === e.index ? e.index : root(p)
    rootOf.set(e.index, r)
    return r
  }
  const groups = new Map<string, Entry[]>()
  for (const e of side) {
    const k = e.agentId ?? `root:${root(e)}`
    const g = groups.get(k)
    if (g === undefined) groups.set(k, [e])
    else g.push(e)
  }
  return [...groups.values()]
}

/** The call that started a sub-agent run, by agent id, by the first record's parent, or by prompt. */
export const linkRun = (
  run: ReadonlyArray<Entry>,
  all: ReadonlyArray<Entry>,
  byUuid: ReadonlyMap<string, Entry>,
  taken: ReadonlySet<string>,
): string | undefined => {
  const first = run[0] as Entry
  const agentId = first.agentId
  if (agentId !== undefined) {
    for (const e of all) {
      const r = e.record['toolUseResult']
      if (e.type !== 'user' || !isObject(r) || r['agentId'] !== agentId) continue
      const b = e.blocks.find((x) => x['type'] === 'tool_result' && typeof x['tool_use_id'] === 'string')
      if (b !== undefined) return String(b['tool_use_id'])
    }
  }
  const prompt = run.find((e) => e.type === 'user')?.blocks.find((b) => b['type'] === 'text')?.['text']
  const agentCalls = (e: Entry) => callsOf(e).filter((c) => isAgentTool(c.name) && !taken.has(c.id))
  // up from the first record's parent to the nearest record holding a free agent call: a run
  // written after its call's result hangs below that result, or below a later record
  let p = first.parent === undefined ? undefined : byUuid.get(first.parent)
  for (let hops = 0; p !== undefined && agentCalls(p).length === 0 && hops < 256; hops++) p = p.parent === undefined ? undefined : byUuid.get(p.parent)
  if (p !== undefined) {
    const calls = agentCalls(p)
    const byPrompt = calls.find((c) => c.prompt !== undefined && c.prompt === prompt)
    if (byPrompt !== undefined || calls.length === 1) return (byPrompt ?? calls[0])?.id
  }
  if (typeof prompt === 'string') { for (const e of all) for (const c of agentCalls(e)) if (c.prompt === prompt) return c.id }
  // else the one free agent call whose prompt the run's first message opens with
  if (typeof prompt !== 'string') return undefined
  const opening = all.flatMap((e) => agentCalls(e).filter((c) => c.prompt !== undefined && c.prompt.trim() !== '' && prompt.includes(c.prompt.trim())))
  return opening.length === 1 ? opening[0]?.id : undefined
}

export const asSubagent = (toolCallId: string, agentId: string | undefined) => (m: Message): Message => ({
  ...m,
  kind: 'display',
  metadata: { ...m.metadata, subagent: { toolCallId, ...(agentId === undefined ? {} : { agentId }) } },
})

/** Puts each run's messages after the tool message answering its call (else after its call's turn). */
export const placeRuns = (ms: ReadonlyArray<Message>, runs: Map<string, ReadonlyArray<Message>>, placed: Set<string>): Message[] => {
  const out: Message[] = []
  let pending: string[] = []
  const put = (id: string): void => {
    const run = runs.get(id)
    if (run === undefined || placed.has(id)) return
    placed.add(id)
    out.push(...placeRuns(run, runs, placed))
  }
  for (const m of ms) {
    if (m.role !== 'tool') {
      for (const id of pending) put(id)
      pending = []
    }
    out.push(m)
    for (const p of m.parts) {
      if (p.type === 'tool_result') put(p.toolCallId)
      else if (p.type === 'tool_call' && m.role === 'assistant') pending.push(p.id)
    }
  }
  for (const id of pending) put(id)
  return out
}

/**
 * Runs read from `agent_progress` progress records (the session file's mirror of a sub-agent's
 * messages, with `parentToolUseID` the calling tool call), by call id, for calls not in `taken`.
 */
export const mirroredRuns = (main: ReadonlyArray<Entry>, taken: ReadonlySet<string>): Map<string, Entry[]> => {
  const mirrors = new Map<string, Entry[]>()
  const seen = new Set<string>()
  for (const e of main) {
    const d = e.record['data']
    const tool = e.record['parentToolUseID']
    if (e.type !== 'progress' || !isObject(d) || d['type'] !== 'agent_progress' || !isObject(d['message']) || typeof tool !== 'string' || taken.has(tool))
      continue
    const inner = d['message']
    if (typeof inner['uuid'] === 'string' && seen.has(inner['uuid'])) continue
    const decoded = decodeEntry(
      { ...inner, isSidechain: true, ...(typeof d['agentId'] === 'string' ? { agentId: d['agentId'] } : {}) },
      e.index,
      `${e.where}.data.message`,
    )
    if (E.isLeft(decoded) || !isMessageEntry(decoded.right)) continue
    if (typeof inner['uuid'] === 'string') seen.add(inner['uuid'])
    mirrors.set(tool, [...(mirrors.get(tool) ?? []), decoded.right])
  }
  return mirrors
}
