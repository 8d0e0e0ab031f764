/**
 * The HTML transcript's cost and receipts: each reply's cost beside its tokens and each turn's sum
 * (from the cost ledger), a model the price table lacks named and never shown as $0, and each
 * compaction's receipt at its summary (from the summary's own record and ledger, or the
 * compaction's report), each cleared tool output under its result.
 */
import { describe, expect, it } from 'vitest'
import { costLedger } from '../../src/cost/ledger.ts'
import { PRICES } from '../../src/cost/prices.ts'
import { withPrices } from '../../src/cost/lookup.ts'
import { EMPTY_LEDGER } from '../../src/history/artifact-ledger.ts'
import type { Receipt } from '../../src/history/receipt.ts'
import { renderHtmlWith } from '../../src/history/render-html.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { all, type Node, tree } from '../support/html-tree.ts'

const byClass = (n: Node, cls: string): Node[] => all(n, (x) => (x.attrs['class'] ?? '').split(' ').includes(cls))
const texts = (n: Node, cls: string): string[] => byClass(n, cls).map((x) => x.text)

const reply = (id: string, model: string, input: number, output: number, extra: Record<string, unknown> = {}) =>
  makeMessage({ id, role: 'assistant', parts: [text(`reply ${id}`)], model, metadata: { usage: { input, output }, ...extra } })

describe('renderHtmlWith: cost', () => {
  const history = [
    textMessage('user', 'First question'),
    reply('a1', 'claude-haiku-4-5', 1_000_000, 0),
    reply('a2', 'claude-haiku-4-5', 0, 100_000),
    textMessage('user', 'Second question'),
    reply('a3', 'in-house-7b', 1_200, 80),
  ]

  it("shows each reply's cost beside its tokens, and each turn's sum beside the turn's tokens", () => {
    const ledger = costLedger({})(history)
    const doc = tree(renderHtmlWith({})(history))
    const money = (n: number) => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`)
    const [l1, l2] = ledger.lines
    expect(texts(doc, 'cost')).toEqual([money(l1?.charge.total ?? NaN), money(l2?.charge.total ?? NaN), 'unpriced: in-house-7b is not in the price table'])
    expect(texts(doc, 'turn-usage')).toEqual(['in 1,000,000 · out 100,000', 'in 1,200 · out 80'])
    expect(texts(doc, 'turn-cost')).toEqual([money((l1?.charge.total ?? NaN) + (l2?.charge.total ?? NaN)), 'unpriced: in-house-7b'])
    // the page's facts give the total priced and name what is not
    const facts = all(doc, (x) => x.tag === 'p')[0]?.text ?? ''
    expect(facts).toContain(`${money(ledger.total)} + unpriced: in-house-7b (prices of ${PRICES.taken})`)
  })

  it('never shows an unpriced reply as costing $0, and prices it once a table has its model', () => {
    const page = renderHtmlWith({})(history)
    expect(byClass(tree(page), 'unpriced').length).toBe(2)
    const priced = renderHtmlWith({ prices: withPrices([{ model: 'in-house-7b', input: 1, output: 10 }])(PRICES) })(history)
    expect(byClass(tree(priced), 'unpriced')).toEqual([])
    expect(texts(tree(priced), 'cost')[2]).toBe('$0.0020')
  })

  it('counts a reply recorded twice (one request) once, and says so on the repeat', () => {
    const twice = [
      textMessage('user', 'Q'),
      reply('b1', 'claude-haiku-4-5', 10, 10, { requestId: 'req_1' }),
      reply('b2', 'claude-haiku-4-5', 10, 10, { requestId: 'req_1' }),
    ]
    const doc = tree(renderHtmlWith({})(twice))
    expect(texts(doc, 'cost')[1]).toBe('counted once, above')
    expect(texts(doc, 'turn-usage')).toEqual(['in 10 · out 10'])
  })
})

describe('renderHtmlWith: receipts', () => {
  const ledger = {
    ...EMPTY_LEDGER,
    read: ['src/cart.ts'],
    edited: ['src/cart.ts'],
    commands: [{ toolCallId: 'c9', tool: 'Bash', command: 'npm test', status: 'failed' as const, exitCode: 1 }],
  }
  const summary = makeMessage({
    id: 's1',
    role: 'user',
    kind: 'synthetic',
    parts: [text('## Goal\nFix the cart total.')],
    metadata: { compaction: { summarised: 12, through: 'm12' }, ledger },
  })
  const history = [
    summary,
    textMessage('user', 'Go on'),
    makeMessage({ id: 'a1', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'Read', arguments: '{"file_path":"src/cart.ts"}' })] }),
    makeMessage({
      id: 't1',
      role: 'tool',
      parts: [toolResult({ toolCallId: 'c1', content: '[tool output pruned — was ~5120 tokens, 20480 chars]\nexport const total =', name: 'Read' })],
    }),
  ]

  it('shows what a summary records of its compaction, and the artifact ledger it keeps, where it happened', () => {
    const doc = tree(renderHtmlWith({})(history))
    const [receipt] = byClass(doc, 'receipt')
    expect(receipt?.text).toContain('12 earlier messages, through m12')
    expect(texts(receipt as Node, 'ledger-read')).toEqual(['Files read 1src/cart.ts'])
    expect(texts(receipt as Node, 'ledger-commands')).toEqual(['Commands 1npm test failed (exit 1)'])
    expect(byClass(receipt as Node, 'failed').length).toBe(1)
  })

  it("shows a compaction's report at its summary, and each output a prune cleared under its result", () => {
    const compaction: Receipt = { summarised: ['m1', 'm2'], archived: ['m0'], toolCalls: [{ id: 'c0', name: 'Bash' }], cleared: [], artifacts: EMPTY_LEDGER }
    const prune: Receipt = {
      ...compaction,
      summarised: [],
      archived: [],
      toolCalls: [],
      cleared: [{ messageId: 't1', toolCallId: 'c1', tool: 'Read', part: 'result', tokensBefore: 5_120, tokensAfter: 48 }],
    }
    const doc = tree(renderHtmlWith({ receipts: [{ receipt: compaction, summaryId: 's1' }, { receipt: prune }] })(history))
    const [receipt] = byClass(doc, 'receipt')
    expect(texts(receipt as Node, 'receipt-summarised')).toEqual(['Summarised 2m1 m2'])
    expect(texts(receipt as Node, 'receipt-archived')).toEqual(['Archived 1m0'])
    expect(texts(receipt as Node, 'receipt-calls')).toEqual(['Tool calls that left 1Bash c0'])
    expect(all(receipt as Node, (x) => x.tag === 'summary')[0]?.text).toBe('Receipt · 2 summarised · 1 tool calls · 2 files, 1 commands')
    expect(texts(doc, 'cleared')).toEqual(['Read c1 result cleared: 5,120 → 48 tokens'])
  })

  it('reads the receipt of a compaction a file recorded from what it archived: the messages up to its last, their calls, their artifacts', () => {
    const archive = [
      textMessage('user', 'Run the tests'),
      makeMessage({ id: 'x2', role: 'assistant', parts: [toolCall({ id: 'c7', name: 'Bash', arguments: '{"command":"npm test"}' })] }),
      makeMessage({ id: 'x3', role: 'tool', parts: [toolResult({ toolCallId: 'c7', content: '1 failing', name: 'Bash', isError: true })] }),
    ]
    const recorded = makeMessage({
      id: 's2',
      role: 'user',
      kind: 'synthetic',
      parts: [text('Summary')],
      metadata: { compaction: { summarised: 3, through: 'x3' } },
    })
    const doc = tree(renderHtmlWith({ archive })([recorded, textMessage('user', 'Go on')]))
    const [receipt] = byClass(doc, 'receipt')
    expect(texts(receipt as Node, 'receipt-summarised')).toEqual([`Summarised 3${archive.map((m) => m.id).join(' ')}`])
    expect(texts(receipt as Node, 'receipt-calls')).toEqual(['Tool calls that left 1Bash c7'])
    expect(all(receipt as Node, (x) => x.attrs['class'] === 'head').map((x) => x.text)).toContain('Artifacts only in what left')
    expect(texts(receipt as Node, 'ledger-commands')).toEqual(['Commands 1npm test failed'])
    // a summary whose last message is not in the archive has only its own record
    const other = renderHtmlWith({ archive: archive.slice(0, 1) })([recorded])
    expect(texts(tree(other), 'receipt-summarised')).toEqual(['Summarised 33 earlier messages, through x3'])
  })
})
