/**
 * Receipts and the artifact ledger on recorded Claude Code sessions and Codex rollouts, each
 * session compacted on its own (and all of them joined): the sessions are read here as plain JSON,
 * independently of chatfold's readers and ledger, and everything a tool touched in the part that
 * left the prompt must be in the compacted history.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { fromClaudeCode } from '../../src/sessions/claude-code.ts'
import { fromCodexRollout } from '../../src/sessions/mod.ts'
import { compact, type CompactionReport } from '../../src/compaction/compact.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { smartHeuristic } from '../../src/tokens/heuristic.ts'
import { artifactLedger, LEDGER_KEY } from '../../src/history/ledger.ts'
import type { Message, Messages } from '../../src/message/message.ts'

type Raw = { readonly calls: Map<string, { readonly paths: ReadonlyArray<string>; readonly failed: boolean }> }

const FILE_TOOLS = new Set(['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit'])

/** A Claude Code session's tool calls, by plain JSON walking: their file paths, and which Bash calls failed. */
const rawClaudeCode = (text: string, into: Raw): void => {
  const bash = new Set<string>()
  const failed = new Set<string>()
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const content = (JSON.parse(line) as { message?: { content?: unknown } }).message?.content
    if (!Array.isArray(content)) continue
    for (const b of content as Array<Record<string, unknown>>) {
      if (b['type'] === 'tool_use') {
        const input = b['input'] as Record<string, unknown>
        const path = input['file_path'] ?? input['notebook_path']
        into.calls.set(String(b['id']), { paths: FILE_TOOLS.has(String(b['name'])) && typeof path === 'string' ? [path] : [], failed: false })
        if (b['name'] === 'Bash') bash.add(String(b['id']))
      } else if (b['type'] === 'tool_result' && b['is_error'] === true) failed.add(String(b['tool_use_id']))
    }
  }
  for (const id of failed) if (bash.has(id)) into.calls.set(id, { ...(into.calls.get(id) ?? { paths: [] }), failed: true })
}

/** A Codex rollout's tool calls, by plain JSON walking: apply_patch's paths, and which shell calls exited non-zero. */
const rawCodex = (text: string, into: Raw): void => {
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const p = (JSON.parse(line) as { payload?: Record<string, unknown> }).payload ?? {}
    if (p['type'] === 'custom_tool_call' || p['type'] === 'function_call') {
      const patch = typeof p['input'] === 'string' ? p['input'] : ''
      const paths = [...patch.matchAll(/^\*\*\* (?:Add|Update|Delete) File: (.+)$/gm)].map((m) => m[1] as string)
      into.calls.set(String(p['call_id']), { paths, failed: false })
    } else if (p['type'] === 'function_call_output' || p['type'] === 'custom_tool_call_output') {
      const out = String(p['output'])
      if (typeof p['output'] !== 'string') continue // content items (an image, a screenshot): no exit status
      const code = out.startsWith('{')
        ? (JSON.parse(out) as { metadata?: { exit_code?: number } }).metadata?.exit_code
        : Number(/^Exit code: (\d+)/.exec(out)?.[1] ?? 0)
      const id = String(p['call_id'])
      if (code !== undefined && code !== 0) into.calls.set(id, { ...(into.calls.get(id) ?? { paths: [] }), failed: true })
    }
  }
}

const callIds = (ms: Messages): Set<string> => new Set(ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []))))

const CC = new URL('../fixtures/claude-code/', import.meta.url)
const CODEX_DIR = new URL('../fixtures/codex/', import.meta.url)
const CODEX = new URL('rollout-2026-03-14T09-12-04-019a7c2e-5d41-7a90-8c3e-2f6b1d0e9a47.jsonl', CODEX_DIR)

/** Every session file of the fixtures: Claude Code's (a sub-agent's transcript among them) and Codex's rollouts. */
const SESSIONS: ReadonlyArray<{ readonly name: string; readonly url: URL; readonly kind: 'claude-code' | 'codex' }> = [
  ...readdirSync(CC).filter((f) => f.endsWith('.jsonl')).sort().map((f) => ({ name: `claude-code/${f}`, url: new URL(f, CC), kind: 'claude-code' as const })),
  ...['7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47/subagents/agent-a3f9d21.jsonl'].map((f) => ({
    name: `claude-code/${f}`,
    url: new URL(f, CC),
    kind: 'claude-code' as const,
  })),
  ...readdirSync(CODEX_DIR).filter((f) => f.endsWith('.jsonl')).sort().map((f) => ({ name: `codex/${f}`, url: new URL(f, CODEX_DIR), kind: 'codex' as const })),
]

/** One session: its history as chatfold reads it (archive and messages), and its calls as read here. */
const loadOne = (s: (typeof SESSIONS)[number]): { readonly history: Messages; readonly raw: Raw } => {
  const raw: Raw = { calls: new Map() }
  const text = readFileSync(s.url, 'utf8')
  if (s.kind === 'claude-code') rawClaudeCode(text, raw)
  else rawCodex(text, raw)
  const r = s.kind === 'claude-code' ? fromClaudeCode()(text) : fromCodexRollout()(text)
  if (r._tag === 'Left') throw new Error(JSON.stringify(r.left))
  return { history: [...r.right.archive, ...r.right.messages], raw }
}

/** Every Claude Code session of the fixtures, one after another, and the Codex rollout (its archive and its history): one long agent history. */
const load = (): { readonly history: Messages; readonly raw: Raw } => {
  const raw: Raw = { calls: new Map() }
  const history: Message[] = []
  for (const f of readdirSync(CC).filter((f) => f.endsWith('.jsonl')).sort()) {
    const text = readFileSync(new URL(f, CC), 'utf8')
    rawClaudeCode(text, raw)
    const r = fromClaudeCode()(text)
    if (r._tag === 'Left') throw new Error(JSON.stringify(r.left))
    history.push(...r.right.archive, ...r.right.messages)
  }
  const text = readFileSync(CODEX, 'utf8')
  rawCodex(text, raw)
  const r = fromCodexRollout()(text)
  if (r._tag === 'Left') throw new Error(JSON.stringify(r.left))
  history.push(...r.right.archive, ...r.right.messages)
  return { history, raw }
}

/** A summariser that remembers nothing: the trail must not depend on what a summary says. */
const forgetful = async (): Promise<string> => '## Goal\nGo on.'

/**
 * Compacts a history to its system prompt, a summary and the last request, and checks that every
 * path a tool touched and every failed command in what left is in the compacted history's ledger,
 * and that the receipt lists every message and tool call that left; answers how many paths and
 * failures it checked, and the report.
 */
const checkCompacted = async (
  history: Messages,
  raw: Raw,
): Promise<{ readonly paths: number; readonly failures: number; readonly ratio: number; readonly report: CompactionReport }> => {
  const r = await compact({ summarize: forgetful, keepRecentTokens: 0 })(history)
  expect(r.report.compacted).toBe(true)
  const ledger = artifactLedger(r.messages)
  const files = new Set([...ledger.read, ...ledger.written, ...ledger.edited])
  const failedInLedger = new Set(ledger.commands.filter((c) => c.status === 'failed').map((c) => c.toolCallId))
  const kept = callIds(r.messages)
  const receiptCalls = new Set(r.report.receipt.toolCalls.map((c) => c.id))
  // the calls of the conversation's active path (a branch the user rewound is in the file, not in the history)
  const sent = callIds(history)
  let paths = 0
  let failures = 0
  for (const [id, call] of raw.calls) {
    if (kept.has(id) || !sent.has(id)) continue
    expect(receiptCalls.has(id), id).toBe(true)
    for (const p of call.paths) (expect(files.has(p), p).toBe(true), paths++)
    if (call.failed) (expect(failedInLedger.has(id), id).toBe(true), failures++)
  }
  // every message that left is in the receipt, summarised or archived, and nothing else is
  const after = new Set(r.messages.map((m) => m.id))
  const leading = history.findIndex((m) => m.role !== 'system') // the system prompt stays first
  const left = history.slice(leading).filter((m) => !after.has(m.id)).map((m) => m.id)
  expect([...r.report.receipt.summarised, ...r.report.receipt.archived].sort()).toEqual([...new Set(left)].sort())
  expect(r.report.receipt.summarised.length).toBeGreaterThan(0)
  return { paths, failures, ratio: r.report.tokensAfter / r.report.tokensBefore, report: r.report }
}

describe('receipts and the ledger on recorded coding-agent sessions', () => {
  const checked = new Map<string, { readonly paths: number; readonly failures: number; readonly ratio: number }>()

  it.each(SESSIONS.map((s) => [s.name, s] as const))(
    '%s, compacted on its own, keeps every path touched and every failed command of what left, and the receipt lists what left',
    async (_, s) => {
      const { history, raw } = loadOne(s)
      const c = await checkCompacted(history, raw)
      checked.set(s.name, c)
      // a session of more than a few hundred tokens compacts to under 10% (a smaller one keeps its last request, which is more)
      if (history.reduce((a, m) => a + smartHeuristic(JSON.stringify(m.parts)), 0) > 2_000) expect(c.ratio).toBeLessThan(0.1)
    },
  )

  it('the sessions checked one by one held file paths and failed commands in the part that left, Codex as well as Claude Code', () => {
    // the checks above ran on something: paths and failures left the prompt, in both agents' sessions
    const sum = (kind: string, k: 'paths' | 'failures') => [...checked].filter(([n]) => n.startsWith(kind)).reduce((a, [, c]) => a + c[k], 0)
    expect(checked.size).toBe(SESSIONS.length)
    expect(sum('claude-code', 'paths')).toBeGreaterThan(5)
    expect(sum('claude-code', 'failures')).toBeGreaterThanOrEqual(1)
    expect(sum('codex', 'paths')).toBeGreaterThanOrEqual(2)
    expect(sum('codex', 'failures')).toBeGreaterThanOrEqual(1)
    // the large sessions went under 10% of their tokens
    expect([...checked.values()].filter((c) => c.ratio < 0.1).length).toBeGreaterThanOrEqual(5)
  })

  it('compacted to under 10% of its tokens, the history keeps every path touched and every failed command of what left, and the receipt lists what left', async () => {
    const { history, raw } = load()
    // compacted, every path and failed command of what left in the ledger, every message that left in the receipt
    const { paths, failures, report } = await checkCompacted(history, raw)
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore / 10)
    // the fixtures hold file edits and failed commands in the part that left: the checks above ran
    expect(paths).toBeGreaterThan(5)
    expect(failures).toBeGreaterThanOrEqual(2)
  })

  it("planCompaction's receipt, before anything runs, is compact's", async () => {
    const { history } = load()
    for (const keepRecentTokens of [0, 200, 1_000]) {
      const plan = planCompaction({ keepRecentTokens, estimate: smartHeuristic })(history)
      const r = await compact({ summarize: forgetful, keepRecentTokens })(history)
      expect(r.report.receipt).toEqual(plan.receipt)
      const summary = r.messages.find((m) => m.metadata?.[LEDGER_KEY] !== undefined)
      expect(summary?.metadata?.[LEDGER_KEY]).toEqual(plan.ledger)
    }
  })

  it("a second compaction carries the first one's ledger forward", async () => {
    const { history } = load()
    const first = await compact({ summarize: forgetful, keepRecentTokens: 1_000 })(history)
    const second = await compact({ summarize: forgetful, keepRecentTokens: 0 })(first.messages)
    expect(second.report.compacted).toBe(true)
    const before = artifactLedger(history)
    const after = artifactLedger(second.messages)
    expect(after.edited).toEqual(expect.arrayContaining([...before.edited]))
    expect(after.written).toEqual(expect.arrayContaining([...before.written]))
    expect(after.commands.map((c) => c.toolCallId)).toEqual(expect.arrayContaining(before.commands.map((c) => c.toolCallId)))
  })
})
