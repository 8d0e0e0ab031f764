import { describe, expect, it } from 'vitest'
import * as O from 'fp-ts/Option'
import { EncodingNameC, loadedEstimator, loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessage, countMessages, withTokens } from '../../src/tokens/count.ts'
import { guardEstimator } from '../../src/tokens/guard.ts'
import { heuristic, smartHeuristic } from '../../src/tokens/heuristic.ts'
import { type Estimator, IMAGE_TOKENS, MESSAGE_OVERHEAD } from '../../src/tokens/message-tokens.ts'
import { backfillToolTokens, usageCorrected } from '../../src/tokens/usage.ts'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { file, image, reasoning, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { type ContentKind, prng, sampleSession, sampleText } from '../../sample/session.ts'
import { deepFreeze } from '../support/arbitraries.ts'

/** An estimator that counts its calls and the characters it was given. */
const recording = (inner: Estimator = heuristic) => {
  const seen = { calls: 0, chars: 0 }
  const estimate: Estimator = (s) => {
    seen.calls++
    seen.chars += s.length
    return inner(s)
  }
  return { estimate, seen }
}

const tool = (id: string, content: string, fields: Partial<Message> = {}): Message =>
  makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: id, content })], ...fields })

/** The longest run of letters, of punctuation or of whitespace in a string. */
const longestRun = (s: string): number => {
  let best = 0
  for (const m of s.matchAll(/[\p{L}\p{M}]+|[^\s\p{L}\p{M}\p{N}]+|\s+/gu)) best = Math.max(best, m[0].length)
  return best
}

describe('heuristic', () => {
  it('is characters / 4, rounded up', () => {
    expect(heuristic('')).toBe(0)
    expect(heuristic('abc')).toBe(1)
    expect(heuristic('Hello, world!')).toBe(4)
  })
})

describe('smartHeuristic', () => {
  it('is zero on empty text and grows with text', () => {
    expect(smartHeuristic('')).toBe(0)
    expect(smartHeuristic('hello')).toBe(1)
    expect(smartHeuristic('hello world and more words')).toBeGreaterThan(smartHeuristic('hello world'))
  })
  it('counts CJK characters, where characters / 4 undercounts', () => {
    const cjk = '会话历史需要压缩。工具调用的结果很长，请先阅读文件再修改。'
    expect(smartHeuristic(cjk)).toBeGreaterThan(heuristic(cjk) * 2)
  })
  it('counts digits in groups of three', () => {
    expect(smartHeuristic('123456789')).toBe(Math.ceil(3 * 1.25))
  })
})

describe('loadEstimator', () => {
  it('loads o200k_base lazily and gives the same function every time', async () => {
    const a = await loadEstimator('o200k_base')
    const b = await loadEstimator('o200k_base')
    expect(a).toBe(b)
    expect(a('Hello, world!')).toBe(4)
    expect(O.isSome(loadedEstimator('o200k_base'))).toBe(true)
  })
  it('loads cl100k_base, a different encoding', async () => {
    const o = await loadEstimator('o200k_base')
    const c = await loadEstimator('cl100k_base')
    expect(c).not.toBe(o)
    const cjk = '会话历史需要压缩。工具调用的结果很长，请先阅读文件再修改。'
    expect(c(cjk)).not.toBe(o(cjk))
  })
  it('gives the heuristic for its name, loaded from the start', async () => {
    expect(await loadEstimator('heuristic')).toBe(heuristic)
    expect(loadedEstimator('heuristic')).toEqual(O.some(heuristic))
  })
  it('rejects an unknown name with a TypeError', async () => {
    await expect(loadEstimator('gpt2' as never)).rejects.toThrow(TypeError)
    expect(EncodingNameC.is('gpt2')).toBe(false)
    expect(EncodingNameC.is('cl100k_base')).toBe(true)
  })
  it('counts special-token text as plain text and never throws on it', async () => {
    const o = await loadEstimator('o200k_base')
    for (const s of ['<|endoftext|>', 'log: <|im_start|>user\nhi<|im_end|>', '<|fim_prefix|><|endofprompt|>']) {
      expect(() => o(s)).not.toThrow()
      expect(o(s)).toBeGreaterThan(1) // a special token would be exactly one
    }
  })
  it('counts a 50,000-letter run exactly, in bounded pieces', async () => {
    const o = await loadEstimator('o200k_base')
    expect(o('a'.repeat(50_000))).toBe(6_250) // 8 letters a token, as gpt-tokenizer counts it
    expect(o(' '.repeat(50_000))).toBe(392)
  })
})

describe('guardEstimator', () => {
  it('gives short text to the counter whole, in one call', () => {
    const { estimate, seen } = recording()
    const s = 'A normal sentence, with words and 123 digits.\n'.repeat(40)
    expect(guardEstimator(estimate)(s)).toBe(heuristic(s))
    expect(seen.calls).toBe(1)
  })
  it('never gives the counter a run of one class longer than 256 characters', () => {
    const lengths: number[] = []
    const guarded = guardEstimator((s) => (lengths.push(longestRun(s)), heuristic(s)))
    for (
      const s of ['a'.repeat(50_000), ' '.repeat(50_000), '='.repeat(10_000), '会'.repeat(20_000), `start ${'x'.repeat(3_000)} end`, `${'\n'.repeat(600)}b`]
    ) {
      lengths.length = 0
      guarded(s)
      expect(Math.max(...lengths)).toBeLessThanOrEqual(256)
    }
  })
  it('cuts runs that mix punctuation with symbols, emoji or box drawing, and whitespace with U+FEFF: one pre-token to a tokenizer', async () => {
    const { O200K_TOKEN_SPLIT_REGEX } = await import('gpt-tokenizer/encodingParams/constants')
    const longestPretoken = (s: string): number => Math.max(0, ...[...s.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => m[0].length))
    for (const unit of ['|─', '!§', '-😀', '.©', ' \ufeff', '┌─┬─┐', '/\n']) {
      const s = unit.repeat(20_000)
      expect(longestPretoken(s)).toBe(s.length) // the whole text is one pre-token to o200k_base
      const pieces: string[] = []
      const n = guardEstimator((t) => (pieces.push(t), t.length))(s)
      expect(pieces.length).toBeLessThanOrEqual(10)
      for (const p of pieces) expect(longestPretoken(p)).toBeLessThanOrEqual(256)
      expect(Math.abs(n - s.length)).toBeLessThanOrEqual(unit.length) // sampled, scaled back to its length
    }
  })
  it('cuts a run whose first characters could belong to the run before it: emoji after a letter, line breaks after a symbol', async () => {
    const { O200K_TOKEN_SPLIT_REGEX } = await import('gpt-tokenizer/encodingParams/constants')
    const longestPretoken = (s: string): number => Math.max(0, ...[...s.matchAll(O200K_TOKEN_SPLIT_REGEX)].map((m) => m[0].length))
    // each half of an emoji may be a letter or a symbol, a line break a symbol or whitespace: the
    // run is the emoji and the line breaks (one pre-token of 261), not the letter and the emoji
    const s = `a${'😀'.repeat(11)}${'\n'.repeat(239)}`
    expect(longestPretoken(s)).toBe(261)
    const pieces: string[] = []
    const n = guardEstimator((t) => (pieces.push(t), t.length))(s)
    for (const p of pieces) expect(longestPretoken(p)).toBeLessThanOrEqual(256)
    expect(n).toBe(s.length)
  })
  it('samples a long run: a bounded number of counter calls whatever its length', () => {
    const { estimate, seen } = recording()
    guardEstimator(estimate)('b'.repeat(1_000_000))
    expect(seen.calls).toBeLessThanOrEqual(10)
    expect(seen.chars).toBeLessThanOrEqual(9 * 256)
  })
  it('scales sampled runs to their length', () => {
    expect(guardEstimator(heuristic)('b'.repeat(100_000))).toBe(25_000)
  })
  it('never cuts a surrogate pair', () => {
    const seen: string[] = []
    guardEstimator((s) => (seen.push(s), s.length))('😀'.repeat(5_000))
    for (const s of seen) {
      expect(s.charCodeAt(s.length - 1) >= 0xd800 && s.charCodeAt(s.length - 1) <= 0xdbff).toBe(false)
      expect(s.charCodeAt(0) >= 0xdc00 && s.charCodeAt(0) <= 0xdfff).toBe(false)
    }
  })
  it('falls back to characters / 4 when the counter throws or answers nonsense', () => {
    expect(
      guardEstimator(() => {
        throw new Error('boom')
      })('abcdefgh'),
    ).toBe(2)
    expect(guardEstimator(() => Number.NaN)('abcdefgh')).toBe(2)
    expect(guardEstimator(() => -3)('abcdefgh')).toBe(2)
  })
})

describe('countMessage', () => {
  it('breaks a message down into content, thinking and tools, plus the overhead', () => {
    const m = deepFreeze(
      makeMessage({
        role: 'assistant',
        parts: [
          text('abcd'.repeat(3)),
          reasoning('efgh'.repeat(5)),
          toolCall({ id: 'c1', name: 'read', arguments: '{"path":"a.ts"}' }),
          image({ url: 'https://example.com/a.png' }),
        ],
      }),
    )
    const b = countMessage(heuristic)(m)
    expect(b).toEqual({ content: 3 + IMAGE_TOKENS, thinking: 5, tools: 1 + 4, total: 3 + IMAGE_TOKENS + 5 + 5 + MESSAGE_OVERHEAD })
  })
  it('counts tool results on their content', () => {
    expect(countMessage(heuristic)(tool('c1', 'x'.repeat(40)))).toEqual({ total: 10 + MESSAGE_OVERHEAD, content: 10, thinking: 0, tools: 0 })
  })
  it('counts a textual file on its text and any other file as an image', () => {
    const txt = makeMessage({ role: 'user', parts: [file({ mediaType: 'text/plain', data: new TextEncoder().encode('12345678') })] })
    const pdf = makeMessage({ role: 'user', parts: [file({ mediaType: 'application/pdf', data: new Uint8Array(10) })] })
    expect(countMessage(heuristic)(txt).content).toBe(2)
    expect(countMessage(heuristic)(pdf).content).toBe(IMAGE_TOKENS)
  })
  it("is cached by message identity, in a cache of each counter's own", () => {
    const { estimate, seen } = recording()
    const m = textMessage('user', 'hello there')
    const count = countMessage(estimate)
    count(m)
    count(m)
    expect(seen.calls).toBe(1)
    count({ ...m }) // a new object: counted again
    expect(seen.calls).toBe(2)
    countMessage(estimate)(m) // a new counter: nothing cached at module scope
    expect(seen.calls).toBe(3)
    const other = recording()
    countMessage(other.estimate)(m)
    expect(other.seen.calls).toBe(1)
  })
})

describe('countMessages', () => {
  it('sums the totals', () => {
    expect(countMessages(heuristic)([textMessage('user', 'Hi'), textMessage('assistant', 'Hello!')])).toBe(1 + 2 + 2 * MESSAGE_OVERHEAD)
    expect(countMessages(heuristic)([])).toBe(0)
  })
  it('re-estimates only the new messages of a long history', () => {
    const history = sampleSession({ messages: 20_000, seed: 3, maxResult: 2_000 })
    const { estimate, seen } = recording()
    const total = countMessages(estimate) // kept, with its counter
    const first = total(history)
    const calls = seen.calls
    expect(calls).toBeGreaterThan(history.length)
    const added = [textMessage('user', 'And now the tests, please.'), textMessage('assistant', 'Running them.')]
    const second = total([...history, ...added])
    expect(seen.calls - calls).toBe(2) // one text part each: only the new messages were estimated
    expect(second).toBe(first + countMessages(heuristic)(added))
  })
})

describe('countMessages on related histories', () => {
  it('is right whether a history extends, replaces or shortens the last one', () => {
    const estimate: Estimator = (s) => s.length
    const count = countMessages(estimate)
    const [a, b, c, d] = ['aa', 'bbbb', 'cccccccc', 'dddddddddddddddd'].map((s) => textMessage('user', s))
    const one = MESSAGE_OVERHEAD
    expect(count([a!, b!])).toBe(6 + 2 * one)
    expect(count([a!, b!, c!])).toBe(14 + 3 * one) // extends
    expect(count([a!, d!, c!])).toBe(26 + 3 * one) // same length, one replaced
    expect(count([a!])).toBe(2 + one) // shorter
    expect(count([d!, a!])).toBe(18 + 2 * one) // same length as nothing before
    expect(countMessages(estimate)([a!, b!, c!, d!])).toBe(30 + 4 * one)
  })
})

describe('withTokens', () => {
  it('fills tokens where missing and keeps reported ones', () => {
    const reported = textMessage('assistant', 'Hello!', { tokens: { total: 99 } })
    const ms = deepFreeze([textMessage('user', 'Hello, world!'), reported])
    const out = withTokens(heuristic)(ms)
    expect(out[0]?.tokens).toEqual({ total: 8, content: 4, thinking: 0, tools: 0 })
    expect(out[1]).toBe(reported)
  })
  it('returns the input itself when every message has tokens', () => {
    const ms = deepFreeze([textMessage('user', 'x', { tokens: { total: 1 } })])
    expect(withTokens(heuristic)(ms)).toBe(ms)
    const filled = withTokens(heuristic)([textMessage('user', 'y')])
    expect(withTokens(heuristic)(filled)).toBe(filled)
  })
  it('estimates a message given again without counts only once, when kept', () => {
    const { estimate, seen } = recording()
    const fill = withTokens(estimate)
    const m = textMessage('user', 'hello')
    fill([m])
    const out = fill([m, textMessage('assistant', 'there')])
    expect(seen.calls).toBe(2)
    expect(out[0]?.tokens).toEqual(countMessage(heuristic)(m))
  })
})

describe('backfillToolTokens', () => {
  const call = makeMessage({ role: 'assistant', parts: [toolCall({ id: 'a', name: 'read' }), toolCall({ id: 'b', name: 'read' })] })
  it('gives a single tool result the whole delta', () => {
    const ms = deepFreeze([textMessage('user', 'go'), call, tool('a', 'result')])
    const out = backfillToolTokens(250)(ms)
    expect(out[2]?.tokens).toEqual({ total: 250 })
    expect(out[0]).toBe(ms[0])
    expect(out[1]).toBe(ms[1])
  })
  it('shares the delta by content length, in whole tokens that sum to it', () => {
    const ms = deepFreeze([call, tool('a', 'x'.repeat(100)), tool('b', 'x'.repeat(200))])
    const out = backfillToolTokens(100)(ms)
    expect(out[1]?.tokens?.total).toBe(33)
    expect(out[2]?.tokens?.total).toBe(67)
  })
  it('shares evenly when every result is empty', () => {
    const out = backfillToolTokens(10)([call, tool('a', ''), tool('b', '')])
    expect([out[1]?.tokens?.total, out[2]?.tokens?.total]).toEqual([5, 5])
  })
  it('stops at the last assistant message', () => {
    const old = tool('z', 'old')
    const ms = deepFreeze([call, old, textMessage('assistant', 'next'), tool('a', 'new')])
    const out = backfillToolTokens(40)(ms)
    expect(out[1]).toBe(old)
    expect(out[3]?.tokens).toEqual({ total: 40 })
  })
  it('returns the input itself for a delta that is not positive, or no tool result', () => {
    const ms = deepFreeze([call, tool('a', 'r')])
    for (const d of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, 0.5]) expect(backfillToolTokens(d)(ms)).toBe(ms)
    const none = deepFreeze([textMessage('user', 'hi'), call])
    expect(backfillToolTokens(10)(none)).toBe(none)
  })
})

describe('usageCorrected', () => {
  const history = deepFreeze([
    textMessage('user', 'Hi', { id: 'u1' }),
    textMessage('assistant', 'Hello!', { id: 'a1' }),
    textMessage('user', 'x'.repeat(40), { id: 'u2' }),
    textMessage('assistant', 'saved', { id: 'd1', kind: 'display' }),
  ])
  it('adds the estimate of the messages after the report, skipping internal ones', () => {
    expect(usageCorrected({ usage: { messageId: 'a1', tokens: 1_000 }, estimate: heuristic })(history)).toBe(1_000 + 10 + MESSAGE_OVERHEAD)
  })
  it('estimates everything without a report, or when its message is gone', () => {
    const all = countMessages(heuristic)(history.slice(0, 3))
    expect(usageCorrected({ estimate: heuristic })(history)).toBe(all)
    expect(usageCorrected({ usage: { messageId: 'gone', tokens: 1_000 }, estimate: heuristic })(history)).toBe(all)
  })
})

describe('the estimators against o200k_base on each content kind', () => {
  const kinds: ReadonlyArray<ContentKind> = ['code', 'json', 'logs', 'prose', 'cjk']
  for (const kind of kinds)
    it(`smartHeuristic reads no less than o200k_base on ${kind}, and at most 15% more`, async () => {
      const o = await loadEstimator('o200k_base')
      const s = sampleText(prng(11), kind, 20_000)
      const ratio = smartHeuristic(s) / o(s)
      expect(ratio).toBeGreaterThanOrEqual(0.97)
      expect(ratio).toBeLessThan(1.15)
    })
})
