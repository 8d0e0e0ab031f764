/**
 * `chatfold render --format html` on session files agent tools wrote: each reply's cost beside its
 * tokens, each turn's sum, and each compaction the file recorded marked with its receipt.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { run } from '../../src/cli/main.ts'
import { costLedger } from '../../src/cost/ledger.ts'
import { readSessionFile } from '../../src/sessions/session-file.ts'
import { all, tree } from '../support/html-tree.ts'

const fixtures = join(import.meta.dirname, '..', 'fixtures')
const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}
const classed = (html: string, cls: string): string[] => all(tree(html), (x) => (x.attrs['class'] ?? '').split(' ').includes(cls)).map((x) => x.text)

describe('render --format html: cost and receipts', () => {
  it('prices each reply of a Claude Code session beside its tokens, the turn summing them; its compaction shows what it replaced', async () => {
    const file = join(fixtures, 'claude-code', '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl')
    const r = await cli('render', file, '--format', 'html')
    expect(r.code).toBe(0)
    const read = readSessionFile({})(new Uint8Array(readFileSync(file)))
    if (E.isLeft(read)) throw new Error('the fixture does not read')
    const ledger = costLedger({})(read.right.messages)
    const money = (n: number) => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`)
    const priced = classed(r.out, 'cost').filter((c) => c.startsWith('$'))
    // a reply that records no token (Claude Code's <synthetic> notes) shows no cost
    const billed = ledger.lines.filter((l) => l.usage.input + l.usage.output + l.usage.cacheRead + l.usage.cacheWrite > 0)
    expect(billed.length).toBeLessThan(ledger.lines.length)
    expect(priced).toEqual(billed.map((l) => money(l.charge.total)))
    expect(classed(r.out, 'turn-cost').length).toBeGreaterThan(0)
    // the compaction the session recorded, where it happened, with the messages it replaced (the reader's archive) and their tool calls
    const archive = read.right.archive
    expect(archive.length).toBeGreaterThan(0)
    expect(classed(r.out, 'receipt-summarised')).toEqual([`Summarised ${archive.length}${archive.slice(0, 40).map((m) => m.id).join(' ')}`])
    const calls = archive.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [`${p.name} ${p.id}`] : [])))
    expect(classed(r.out, 'receipt-calls')).toEqual(calls.length === 0 ? [] : [`Tool calls that left ${calls.length}${calls.slice(0, 40).join(' ')}`])
  })
})
