/**
 * The session store's report of a stored transcript: its cost agrees with the usage its records
 * hold, priced here by hand (a reply written over several records counted once, the one-hour cache
 * writes apart), and its receipt lists the tool calls and files the agent's compaction took out,
 * read here from the raw records.
 */
import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk'
import { createChatStore } from '../../src/store/store.ts'
import { chatStoreSessionStore, storeChatLog } from '../../src/claude-agent-sdk/mod.ts'
import { withPrices } from '../../src/cost/lookup.ts'
import { PRICES } from '../../src/cost/prices.ts'

const main: SessionKey = { projectKey: '/home/dev/app', sessionId: 's-1' }
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'claude-code', '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl')

type Raw = Record<string, unknown> & { message?: { id?: string; model?: string; usage?: Record<string, unknown>; content?: unknown } }

/** Claude Opus 4.6 per million tokens: $5 in, $25 out, $0.50 cache read, $6.25 cache write for 5 minutes, $10 for an hour. */
const opusUsd = (u: Record<string, unknown>): number => {
  const n = (k: string): number => (typeof u[k] === 'number' ? (u[k] as number) : 0)
  const split = (u['cache_creation'] ?? {}) as Record<string, number>
  const h1 = split['ephemeral_1h_input_tokens'] ?? 0
  const m5 = n('cache_creation_input_tokens') - h1
  return (n('input_tokens') * 5 + n('output_tokens') * 25 + n('cache_read_input_tokens') * 0.5 + m5 * 6.25 + h1 * 10) / 1e6
}

describe('chatStoreSessionStore.report', () => {
  it("prices the transcript's replies once each, and lists what the agent's compaction took out of the prompt", async () => {
    const records = readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Raw)
    const store = chatStoreSessionStore(storeChatLog(createChatStore({ maxHistorySize: Infinity })))
    await store.append(main, records as SessionStoreEntry[])
    const report = await store.report(main)
    if (report === undefined) throw new Error('the transcript was stored')
    // the cost: each reply's usage once (by message id), the API error record Claude Code wrote itself costing nothing
    const replies = new Map<string, Record<string, unknown>>()
    for (const r of records)
      if (r['type'] === 'assistant' && r.message?.model !== '<synthetic>' && r.message?.id !== undefined && r.message.usage !== undefined)
        replies.set(r.message.id, r.message.usage)
    expect(replies.size).toBeGreaterThan(3)
    expect(report.cost.total).toBeCloseTo([...replies.values()].reduce((a, u) => a + opusUsd(u), 0), 10)
    expect(report.cost.byModel.map((m) => m.model)).toContain('claude-opus-4-6')
    // the receipt: every tool call before the compaction boundary, and none after it
    const boundary = records.findIndex((r) => r['subtype'] === 'compact_boundary')
    expect(boundary).toBeGreaterThan(0)
    const callsOf = (rs: Raw[]) =>
      rs.flatMap((
        r,
      ) => (r['type'] === 'assistant' && Array.isArray(r.message?.content)
        ? (r.message.content as Array<Record<string, unknown>>).filter((b) => b['type'] === 'tool_use')
        : [])
      )
    const before = callsOf(records.slice(0, boundary))
    expect(report.compactions).toBe(1)
    expect(report.receipt.toolCalls).toEqual(before.map((b) => ({ id: b['id'], name: b['name'] })))
    expect(report.receipt.archived.length).toBeGreaterThan(0)
    // the files only the compacted part read (the agent's summary had to carry them), and none still edited after it
    const paths = (rs: Raw[], tool: string) =>
      new Set(callsOf(rs).filter((b) => b['name'] === tool).map((b) => String((b['input'] as Record<string, unknown>)['file_path'])))
    const readAfter = paths(records.slice(boundary), 'Read')
    const onlyRead = [...paths(records.slice(0, boundary), 'Read')].filter((p) => !readAfter.has(p))
    expect(onlyRead.length).toBeGreaterThan(0)
    expect(report.receipt.artifacts.read).toEqual(onlyRead)
    const editedAfter = paths(records.slice(boundary), 'Edit')
    expect(report.receipt.artifacts.edited).toEqual([...paths(records.slice(0, boundary), 'Edit')].filter((p) => !editedAfter.has(p)))
    expect(await store.report({ ...main, sessionId: 'never' })).toBeUndefined()
  })

  it('names a model the price table lacks, and takes a table given', async () => {
    const reply = (id: string) => ({
      type: 'assistant',
      uuid: id,
      parentUuid: null,
      sessionId: 's-2',
      timestamp: '2026-11-01T00:00:00.000Z',
      message: {
        id,
        role: 'assistant',
        model: 'in-house-7b',
        content: [{ type: 'text', text: 'Done.' }],
        usage: { input_tokens: 1_000_000, output_tokens: 0 },
      },
    })
    const store = chatStoreSessionStore(storeChatLog(createChatStore({ maxHistorySize: Infinity })))
    const key = { ...main, sessionId: 's-2' }
    await store.append(key, [reply('m1')])
    const unpriced = await store.report(key)
    expect(unpriced?.cost.total).toBe(0)
    expect(unpriced?.cost.failures).toEqual([expect.objectContaining({ kind: 'unpriced', model: 'in-house-7b' })])
    const priced = await store.report(key, { prices: withPrices([{ model: 'in-house-7b', input: 0.5, output: 1 }])(PRICES) })
    expect(priced?.cost.total).toBe(0.5)
    expect(priced?.cost.failures).toEqual([])
  })
})
