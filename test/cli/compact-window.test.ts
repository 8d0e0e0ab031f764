/**
 * `chatfold stats` shows the usage-anchored context next to the estimate; `chatfold compact
 * --context-window` compacts only when `shouldCompact`'s rule says so, anchored on the usage the
 * file records, and says which way it decided and why.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { type Message } from '../../src/message/message.ts'
import { sampleSession } from '../../sample/session.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
// the last reply records input 1, cache write 200, cache read 15,010 and output 18: 15,229 tokens of context
const SESSION = join(root, 'test', 'fixtures', 'claude-code', '4b7e2a90-1c5d-4e8f-a3b6-9d0c1e2f3a47.jsonl')
let dir = ''
let plain = ''

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

const decoded = (text: string): ReadonlyArray<Message> => {
  const r = fromJSONL(text)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-window-'))
  plain = join(dir, 'history.jsonl')
  writeFileSync(plain, toJSONL(sampleSession({ messages: 80, seed: 3, maxResult: 3_000 })))
})

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

describe('chatfold stats: the usage-anchored context', () => {
  it('anchors on the last recorded usage, next to the estimate alone', async () => {
    const json = await cli('stats', SESSION, '--json', '--encoding', 'heuristic')
    expect(json.code, json.err).toBe(EXIT.ok)
    const s = JSON.parse(json.out) as { context: { total: number; reported: number; estimated: number; anchor?: string }; contextEstimate: number }
    expect(s.context).toMatchObject({ total: 15_229, reported: 15_229, estimated: 0 })
    expect(s.context.anchor).toBeDefined()
    expect(s.contextEstimate).toBeGreaterThan(0)
    expect(s.contextEstimate).toBeLessThan(1_000)
    const text = await cli('stats', SESSION, '--encoding', 'heuristic')
    expect(text.out).toMatch(/^context: 15,229 tokens = 15,229 reported at \S+ \+ 0 estimated since \(heuristic\); the estimate alone: \d+$/m)
  })

  it('says when no usage anchors the figure', async () => {
    const r = await cli('stats', plain, '--encoding', 'heuristic')
    expect(r.out).toMatch(/^context: [\d,]+ tokens estimated \(heuristic; no usage recorded to anchor it\)$/m)
  })
})

describe('chatfold compact --context-window', () => {
  it('leaves a history whose reported context is within the window as it was, and says why', async () => {
    const r = await cli('compact', SESSION, '--encoding', 'heuristic', '--context-window', '16000', '--reserve-tokens', '500')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.err).toMatch(
      /not compacted: the context is 15,229 tokens \(15,229 reported at \S+ \+ 0 estimated since \(heuristic\)\), within 15,500 \(window 16,000 − reserve 500\)/,
    )
    const same = await cli('convert', SESSION, '--to', 'chatfold-jsonl')
    expect(decoded(r.out)).toEqual(decoded(same.out))
  })

  it('compacts one whose reported context is over it, though its estimate alone is far below', async () => {
    const r = await cli('compact', SESSION, '--encoding', 'heuristic', '--context-window', '15000', '--reserve-tokens', '500', '--keep-recent-tokens', '50')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.err).toMatch(
      /compacting: the context is 15,229 tokens .*, over 14,500 \(window 15,000 − reserve 500\); the request's part outside the history, as the last report implies it, is [\d,]+/,
    )
    expect(decoded(r.out).filter(isCompactionSummary)).toHaveLength(1)
    const json = await cli('compact', SESSION, '--encoding', 'heuristic', '--context-window', '15000', '--reserve-tokens', '500', '--json')
    const report = JSON.parse(json.err) as { decision: { compact: boolean; limit: number; fixedTokens: number; context: { total: number } } }
    expect(report.decision).toMatchObject({ compact: true, limit: 14_500, context: { total: 15_229 } })
    // most of the reported context is what the file does not hold: the client's system prompt and tools
    expect(report.decision.fixedTokens).toBeGreaterThan(14_000)
  })

  it('without usage, counts the fixed tokens given and fits the whole request in the window', async () => {
    const alone = JSON.parse((await cli('stats', plain, '--json', '--encoding', 'heuristic')).out) as { context: { total: number } }
    const window = alone.context.total + 2_000
    const fits = await cli('compact', plain, '--encoding', 'heuristic', '--context-window', String(window), '--reserve-tokens', '1000')
    expect(fits.err).toMatch(/^not compacted: .*no usage recorded to anchor it/m)
    const over = await cli(
      'compact',
      plain,
      '--encoding',
      'heuristic',
      '--context-window',
      String(window),
      '--reserve-tokens',
      '1000',
      '--fixed-tokens',
      '5000',
      '--json',
    )
    expect(over.code, over.err).toBe(EXIT.ok)
    const report = JSON.parse(over.err) as { compacted: boolean; tokensAfter: number; summaryTokens: number; decision: { compact: boolean; limit: number } }
    expect(report.decision.compact).toBe(true)
    expect(report.compacted).toBe(true)
    expect(report.tokensAfter + 5_000).toBeLessThanOrEqual(report.decision.limit)
  })

  it('compacts one whose estimate is over the window though a lower report says it fits', async () => {
    const history = sampleSession({ messages: 80, seed: 3, maxResult: 3_000 })
    const alone = JSON.parse((await cli('stats', plain, '--json', '--encoding', 'heuristic')).out) as { context: { total: number } }
    // a report of 100 tokens on the last reply: the anchored context is far below the estimate
    const last = history.map((m) => m.role === 'assistant' && m.kind === 'normal').lastIndexOf(true)
    const low = history.map((m, i) => (i === last ? { ...m, metadata: { ...m.metadata, usage: { input: 100, output: 1 } } } : m))
    const file = join(dir, 'low-report.jsonl')
    writeFileSync(file, toJSONL(low))
    const window = Math.round(alone.context.total * 0.8)
    const r = await cli('compact', file, '--encoding', 'heuristic', '--context-window', String(window), '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const report = JSON.parse(r.err) as { compacted: boolean; decision: { compact: boolean; estimate: number; context: { total: number } } }
    expect(report.decision.context.total).toBeLessThan(window)
    expect(report.decision.estimate).toBeGreaterThan(window)
    expect(report.decision.compact).toBe(true)
    expect(report.compacted).toBe(true)
    const text = await cli('compact', file, '--encoding', 'heuristic', '--context-window', String(window))
    expect(text.err).toMatch(/but the estimate of the whole history is [\d,]+, over it/)
  })

  it('refuses a calibration that is not a positive number', async () => {
    const r = await cli('compact', plain, '--context-window', '1000', '--calibration', '0')
    expect(r.code).not.toBe(EXIT.ok)
    expect(r.err).toMatch(/calibration must be a number > 0, got 0/)
  })
})
