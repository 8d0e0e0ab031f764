import { beforeAll, describe, expect, it } from 'vitest'
import { type Agreement, agreement } from '../../scripts/bench/cost-agreement.ts'

// The peer: ccusage 18 (npm), run offline on the Claude Code fixtures (their sources are listed in
// test/fixtures/claude-code/SOURCES.md), with its own prices given to chatfold as --prices.
describe('stats --cost agrees with ccusage on the same Claude Code sessions', () => {
  let rows: ReadonlyArray<Agreement>
  beforeAll(async () => {
    rows = await agreement()
  }, 240_000)

  it('covers every fixture, each priced whole', () => {
    expect(rows.length).toBeGreaterThanOrEqual(6)
    for (const r of rows) expect({ file: r.file, unpriced: r.unpriced, priced: r.chatfold > 0 }).toEqual({ file: r.file, unpriced: 0, priced: true })
  })

  it("within 0.5% of ccusage per file and in total, once each record of a reply carries the reply's final usage", () => {
    for (const r of rows) expect(Math.abs(r.chatfold - r.ccusageFinal), r.file).toBeLessThanOrEqual(0.005 * r.ccusageFinal)
    const sum = (k: 'chatfold' | 'ccusageFinal') => rows.reduce((a, r) => a + r[k], 0)
    expect(Math.abs(sum('chatfold') - sum('ccusageFinal'))).toBeLessThanOrEqual(0.005 * sum('ccusageFinal'))
  })

  it('on the files as written, differs from ccusage by exactly the output its first records of a reply lack', () => {
    // ccusage keeps a reply's first record, whose output_tokens is partial while the reply streams
    expect(rows.some((r) => r.expected > 0)).toBe(true)
    for (const r of rows) expect(r.chatfold - r.ccusage, r.file).toBeCloseTo(r.expected, 9)
  })

  it("each message's cost adds up to the total within 0.1%", () => {
    for (const r of rows) expect(Math.abs(r.messagesSum - r.chatfold), r.file).toBeLessThanOrEqual(0.001 * r.chatfold)
  })

  it("prices the 1-hour cache writes Claude Code makes above ccusage's single write rate, never below", () => {
    for (const r of rows) expect(r.chatfoldOwnPrices, r.file).toBeGreaterThanOrEqual(r.chatfold - 1e-12)
    expect(rows.some((r) => r.chatfoldOwnPrices > r.chatfold)).toBe(true)
  })
})
