import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { describe, expect, it } from 'vitest'
import { chargeOf, costLedger, type Price, priceOf, PRICES, withPrices } from '../../src/cost/mod.ts'
import { makeMessage, text, textMessage } from '../../src/message/mod.ts'
import type { Message } from '../../src/message/message.ts'

const reply = (id: string, model: string | undefined, usage: unknown, more: Partial<Message> = {}): Message =>
  makeMessage({ id, role: 'assistant', parts: [text('ok')], ...(model === undefined ? {} : { model }), metadata: { usage }, ...more })

const row = (model: string): Price => {
  const p = priceOf(PRICES)(model)
  if (O.isNone(p)) throw new Error(`no row for ${model}`)
  return p.value
}

describe('the price table', () => {
  it('finds a model by its dated snapshot and its provider prefix, and never guesses one it lacks', () => {
    expect(row('claude-haiku-4-5-20251001').model).toBe('claude-haiku-4-5')
    expect(row('anthropic/claude-sonnet-4-5').model).toBe('claude-sonnet-4-5')
    expect(row('models/gemini-2.5-pro').model).toBe('gemini-2.5-pro')
    expect(row('gpt-5-codex').model).toBe('gpt-5')
    expect(O.isNone(priceOf(PRICES)('claude-sonnet-9'))).toBe(true)
    expect(O.isNone(priceOf(PRICES)('<synthetic>'))).toBe(true)
  })

  it('is dated and names its sources; every row of a provider with caches prices cache reads', () => {
    expect(PRICES.taken).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(PRICES.sources.length).toBeGreaterThanOrEqual(3)
    for (const p of PRICES.prices) expect(typeof p.cacheRead, p.model).toBe('number')
    // Anthropic's rule: a 5-minute write 1.25 × input, a 1-hour one 2 ×, a read 0.1 × (Haiku 3's page figures are rounded)
    for (const p of PRICES.prices.filter((x) => x.provider === 'anthropic' && x.model !== 'claude-3-haiku'))
      expect([p.cacheWrite5m, p.cacheWrite1h, p.cacheRead], p.model).toEqual([p.input * 1.25, p.input * 2, p.input / 10])
  })

  it('takes rows of the caller before its own, replacing the row of the same model', () => {
    const mine = withPrices([{ model: 'Claude-Haiku-4-5', input: 100, output: 100 }, { model: 'in-house', input: 1, output: 1 }])(PRICES)
    expect(priceOf(mine)('claude-haiku-4-5-20251001')).toEqual(O.some({ model: 'Claude-Haiku-4-5', input: 100, output: 100 }))
    expect(O.isSome(priceOf(mine)('in-house'))).toBe(true)
    expect(mine.prices.filter((p) => p.model.toLowerCase() === 'claude-haiku-4-5')).toHaveLength(1)
    expect(withPrices([])(PRICES)).toBe(PRICES)
  })
})

describe('the charge of one request', () => {
  it('prices each kind of token at its rate, 1-hour cache writes apart', () => {
    const c = chargeOf(row('claude-opus-4-6'))({
      input: 1_000_000,
      output: 1_000_000,
      cacheRead: 1_000_000,
      cacheWrite: 2_000_000,
      reasoning: 0,
      cacheWrite1h: 1_000_000,
    })
    expect(c).toEqual(E.right({ input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 + 10, total: 5 + 25 + 0.5 + 16.25, longContext: false }))
  })

  it('prices the whole request at the long-context rates once its prompt is over the tier', () => {
    const sonnet = row('claude-sonnet-4-5')
    const under = chargeOf(sonnet)({ input: 200_000, output: 1_000, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    const over = chargeOf(sonnet)({ input: 200_001, output: 1_000, cacheRead: 0, cacheWrite: 0, reasoning: 0 })
    expect(E.isRight(under) && under.right.longContext).toBe(false)
    expect(E.isRight(over) && over.right).toMatchObject({ longContext: true, input: (200_001 * 6) / 1e6, output: (1_000 * 22.5) / 1e6 })
  })

  it('prices reasoning at its own rate when the row has one, else as output', () => {
    const p: Price = { model: 'r', input: 0, output: 10, reasoning: 2 }
    expect(chargeOf(p)({ input: 0, output: 1_000_000, cacheRead: 0, cacheWrite: 0, reasoning: 500_000 })).toMatchObject(E.right({ output: 6, total: 6 }))
    expect(chargeOf({ model: 'r', input: 0, output: 10 })({ input: 0, output: 1_000_000, cacheRead: 0, cacheWrite: 0, reasoning: 500_000 })).toMatchObject(
      E.right({ output: 10 }),
    )
  })

  it('is a failure, not zero, when a kind of token used has no rate', () => {
    const p: Price = { model: 'bare', input: 1, output: 1 }
    expect(chargeOf(p)({ input: 1, output: 1, cacheRead: 5, cacheWrite: 0, reasoning: 0 })).toEqual(
      E.left({ kind: 'missing-rate', model: 'bare', rate: 'cacheRead' }),
    )
    expect(chargeOf(p)({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0 })).toMatchObject(E.right({ total: 2 / 1e6 }))
  })
})

describe('the ledger of a history', () => {
  const history = [
    textMessage('user', 'First question', { id: 'u1' }),
    reply('a1', 'claude-haiku-4-5', { input: 1_000_000, output: 0 }, { createdAt: '2026-03-04T23:59:00.000Z' }),
    makeMessage({ id: 't1', role: 'tool', parts: [{ type: 'tool_result', toolCallId: 'c1', content: 'x', isError: false }] }),
    reply('a2', 'claude-haiku-4-5-20251001', { input: 0, output: 200_000 }, { createdAt: '2026-03-05T00:01:00.000Z' }),
    textMessage('user', 'Second question', { id: 'u2' }),
    reply('a3', 'in-house-7b', { input: 10, output: 2 }, { createdAt: '2026-03-05T00:02:00.000Z' }),
    reply('a4', undefined, { input: 10, output: 2 }),
    reply('a5', 'claude-haiku-4-5', { input: 'many', output: 2 }),
    reply('a6', '<synthetic>', { input: 0, output: 0 }),
  ]

  it('prices each reply, sums them per turn, model and day, and names what it cannot price', () => {
    const l = costLedger({})(history)
    expect(l.total).toBe(1 + 1)
    expect(l.lines.map((x) => [x.messageId, x.turn, x.charge.total])).toEqual([['a1', 1, 1], ['a2', 1, 1], ['a6', 2, 0]])
    expect(l.failures).toEqual([
      { kind: 'unpriced', model: 'in-house-7b', messageId: 'a3' },
      { kind: 'no-model', messageId: 'a4' },
      { kind: 'malformed', messageId: 'a5' },
    ])
    expect(l.byModel.map((m) => [m.model, m.replies, m.unpriced, m.cost])).toEqual([
      ['claude-haiku-4-5', 1, 0, 1],
      ['claude-haiku-4-5-20251001', 1, 0, 1],
      ['in-house-7b', 1, 1, undefined],
      ['unknown', 1, 1, undefined],
      ['<synthetic>', 1, 0, 0],
    ])
    expect(l.byDay.map((d) => [d.day, d.cost])).toEqual([['2026-03-04', 1], ['2026-03-05', 1], ['unknown', 0]])
    expect(l.byTurn.map((t) => [t.turn, t.messageId, t.replies, t.cost])).toEqual([[1, 'u1', 2, 2], [2, 'u2', 3, 0]])
    expect(l.prices).toEqual({ taken: PRICES.taken, sources: PRICES.sources })
  })

  it('prices a model the table lacks once the caller gives its row', () => {
    const l = costLedger({ prices: withPrices([{ model: 'in-house-7b', input: 1e6, output: 0 }])(PRICES) })(history)
    expect(l.total).toBe(2 + 10)
    expect(l.failures.map((f) => f.kind)).toEqual(['no-model', 'malformed'])
  })

  it('counts a reply repeated in the history once: by the provider request id, else by the message id', () => {
    const once = [
      reply('a1', 'claude-haiku-4-5', { input: 1_000_000, output: 0 }, { metadata: { usage: { input: 1_000_000, output: 0 }, requestId: 'req_1' } }),
    ]
    const twice = [
      ...once,
      reply('a1-copy', 'claude-haiku-4-5', { input: 1_000_000, output: 0 }, { metadata: { usage: { input: 1_000_000, output: 0 }, requestId: 'req_1' } }),
      once[0] as Message,
    ]
    const l = costLedger({})(twice)
    expect(l.total).toBe(costLedger({})(once).total)
    expect(l.duplicates).toEqual(['a1-copy', 'a1'])
  })

  it('adds up: the lines sum to the total, and so do the models, days and turns', () => {
    const l = costLedger({})(history)
    const sum = (xs: ReadonlyArray<{ readonly cost?: number }>) => xs.reduce((a, x) => a + (x.cost ?? 0), 0)
    expect(l.lines.reduce((a, x) => a + x.charge.total, 0)).toBeCloseTo(l.total, 12)
    for (const by of [l.byModel, l.byDay, l.byTurn]) expect(sum(by)).toBeCloseTo(l.total, 12)
  })
})
