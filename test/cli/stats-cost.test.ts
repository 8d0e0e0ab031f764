import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const PARALLEL = join(FIXTURES, 'claude-code', '1e8d4c2f-6a3b-4f1e-9d7c-2b5a8e0f4c61.jsonl')
const REWIND = join(FIXTURES, 'claude-code', '4b7e2a90-1c5d-4e8f-a3b6-9d0c1e2f3a47.jsonl')
const dir = mkdtempSync(join(tmpdir(), 'chatfold-cost-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}
type CostJson = {
  total: number
  byModel: Record<string, { cost?: number; cacheRead: number; cacheWrite: number }>
  byDay: Record<string, { cost?: number }>
  messages: Array<{ id: string; cost: number }>
  unpriced: Array<{ kind: string; model?: string }>
}
const costOf = async (...argv: string[]): Promise<CostJson> => {
  const r = await cli('stats', ...argv, '--cost', '--json', '--encoding', 'heuristic')
  expect(r.code, r.err).toBe(EXIT.ok)
  return (JSON.parse(r.out) as { cost: CostJson }).cost
}

describe('chatfold stats --cost', () => {
  it('prints the cost by model and by day, cache reads and writes beside it', async () => {
    const r = await cli('stats', PARALLEL, '--cost', '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    const at = r.out.indexOf('cost by model:')
    expect(at).toBeGreaterThan(0)
    const lines = r.out.slice(at).split('\n')
    expect(lines[1]).toMatch(/replies +input +output +cache read +cache write +cost/)
    // 3 replies of Opus 4.6: 5 input, 549 output, 55,850 read, 7,410 written for an hour
    expect(lines[2]).toMatch(/claude-opus-4-6 +3 +5 +549 +55,850 +7,410 +\$0\.1158/)
    expect(r.out).toMatch(/cost by day \(UTC\):\n.*\n {2}2026-03-04 +3 /)
  }, 60_000)

  it('gives "cost": { total, byModel, … } in --json, each message\'s cost adding up to the total', async () => {
    const c = await costOf(PARALLEL)
    // by hand: Opus 4.6 at $5 input, $25 output, $0.50 cache read, $10 a 1-hour cache write, per million
    const byHand = (5 * 5 + 549 * 25 + 55_850 * 0.5 + 7_410 * 10) / 1e6
    expect(c.total).toBeCloseTo(byHand, 12)
    expect(Object.keys(c.byModel)).toEqual(['claude-opus-4-6'])
    expect(c.byModel['claude-opus-4-6']?.cost).toBeCloseTo(byHand, 12)
    expect(c.messages.reduce((a, m) => a + m.cost, 0)).toBeCloseTo(c.total, 12)
    expect(c.unpriced).toEqual([])
  })

  it('prices what the file records of abandoned branches too: they were billed', async () => {
    const all = await costOf(REWIND)
    const r = await cli('stats', REWIND, '--json', '--encoding', 'heuristic')
    const active = JSON.parse(r.out) as { usage: { total: { replies: number } } }
    expect(all.messages.length).toBeGreaterThan(active.usage.total.replies)
  })

  it("prices a sub-agent transcript the session links to no call (a compaction's summariser), and a linked run once", async () => {
    const session = '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47'
    const copy = join(dir, 'with-summariser')
    cpSync(join(FIXTURES, 'claude-code', `${session}.jsonl`), join(copy, `${session}.jsonl`))
    cpSync(join(FIXTURES, 'claude-code', session), join(copy, session), { recursive: true })
    const before = await costOf(join(copy, `${session}.jsonl`))
    const base = { isSidechain: true, userType: 'external', sessionId: session, version: '2.1.39', agentId: 'acompact-e1f845' }
    const records = [
      {
        ...base,
        parentUuid: null,
        type: 'user',
        uuid: 'c0c0a000-0001-4001-8001-000000000001',
        timestamp: '2026-03-04T09:30:00.000Z',
        message: { role: 'user', content: 'Summarise the conversation so far.' },
      },
      {
        ...base,
        parentUuid: 'c0c0a000-0001-4001-8001-000000000001',
        type: 'assistant',
        uuid: 'c0c0a000-0002-4002-8002-000000000002',
        timestamp: '2026-03-04T09:30:05.000Z',
        requestId: 'req_summary',
        message: {
          model: 'claude-opus-4-6',
          id: 'msg_summary',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: 'Summary: dates are parsed in two places.' }],
          stop_reason: 'end_turn',
          usage: { input_tokens: 1_000_000, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      },
    ]
    writeFileSync(join(copy, session, 'subagents', 'agent-acompact-e1f845.jsonl'), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`)
    const after = await costOf(join(copy, `${session}.jsonl`))
    // a million input tokens of Opus 4.6 at $5; the linked run's replies still counted once
    expect(after.total).toBeCloseTo(before.total + 5, 12)
    expect(after.messages.map((m) => m.id)).toEqual([...before.messages.map((m) => m.id), 'c0c0a000-0002-4002-8002-000000000002'])
    expect(new Set(after.messages.map((m) => m.id)).size).toBe(after.messages.length)
  })

  it('names a model it has no price for, and prices it from --prices', async () => {
    const file = join(dir, 'own.jsonl')
    const reply = {
      id: 'a1',
      role: 'assistant',
      kind: 'normal',
      model: 'in-house-7b',
      parts: [{ type: 'text', text: 'ok' }],
      metadata: { usage: { input: 1_000_000, output: 0 } },
    }
    writeFileSync(file, `${JSON.stringify({ id: 'u1', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'hi' }] })}\n${JSON.stringify(reply)}\n`)
    const unpriced = await costOf(file, '--from', 'chatfold-jsonl')
    expect(unpriced.total).toBe(0)
    expect(unpriced.unpriced).toEqual([{ kind: 'unpriced', model: 'in-house-7b', messageId: 'a1' }])
    expect(unpriced.byModel['in-house-7b']?.cost).toBeUndefined()
    const text = await cli('stats', file, '--from', 'chatfold-jsonl', '--cost', '--encoding', 'heuristic')
    expect(text.out).toMatch(/not priced.*in-house-7b/)
    const prices = join(dir, 'prices.json')
    writeFileSync(prices, JSON.stringify([{ model: 'in-house-7b', input: 0.5, output: 1 }]))
    expect((await costOf(file, '--from', 'chatfold-jsonl', '--prices', prices)).total).toBe(0.5)
    writeFileSync(prices, JSON.stringify([{ model: 'in-house-7b', input: 'cheap', output: 1 }]))
    const bad = await cli('stats', file, '--from', 'chatfold-jsonl', '--cost', '--prices', prices)
    expect(bad.code).toBe(EXIT.input)
    expect(bad.err).toMatch(/not a list of prices/)
  })
})

describe('chatfold stats --cost on a Codex rollout', () => {
  it("is the rollout's token_count events, each request once, at GPT-5's rates", async () => {
    const dir = join(FIXTURES, 'codex')
    const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.jsonl')) as string)
    // read independently: a request's usage is a token_count event's last_token_usage; an event
    // repeated with the same running total is the same request
    type Usage = { input_tokens: number; cached_input_tokens: number; output_tokens: number }
    const seen = new Set<number>()
    const requests: Usage[] = []
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      const r = JSON.parse(line) as {
        type?: string
        payload?: { type?: string; info?: { last_token_usage: Usage; total_token_usage: { total_tokens: number } } | null }
      }
      const info = r.type === 'event_msg' && r.payload?.type === 'token_count' ? r.payload.info : undefined
      if (info === undefined || info === null || seen.has(info.total_token_usage.total_tokens)) continue
      seen.add(info.total_token_usage.total_tokens)
      requests.push(info.last_token_usage)
    }
    // GPT-5 (gpt-5-codex): $1.25 input, $0.125 cached input, $10 output, per million; cached tokens are inside input_tokens
    const byHand = requests.reduce(
      (a, u) => a + ((u.input_tokens - u.cached_input_tokens) * 1.25 + u.cached_input_tokens * 0.125 + u.output_tokens * 10) / 1e6,
      0,
    )
    const c = await costOf(file)
    expect(requests.length).toBeGreaterThan(1)
    expect(c.messages).toHaveLength(requests.length)
    expect(c.total).toBeCloseTo(byHand, 12)
    expect(c.messages.reduce((a, m) => a + m.cost, 0)).toBeCloseTo(c.total, 12)
    expect(c.unpriced).toEqual([])
  })
})
