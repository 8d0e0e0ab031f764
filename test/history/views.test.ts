import { describe, expect, it } from 'vitest'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import {
  forCompaction,
  forDisplay,
  forExport,
  forExportStructured,
  forLLM,
  forPreservation,
  forSave,
  lastTurns,
  withoutInternal,
  withoutSynthetic,
  withoutThinking,
} from '../../src/history/views.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import type { Message } from '../../src/message/message.ts'
import { call, everyKind, ids, msg, result, think, txt } from './fixtures.ts'

// The seed's include/exclude lists, over one message of every kind (see fixtures.ts).
describe('views against the seed lists', () => {
  it('forLLM: normal, synthetic and ephemeral; no display, bookmark or metadata', () => {
    expect(ids(forLLM(everyKind))).toEqual(['sys', 'u1', 'syn', 'a1', 't1', 'eph', 'a2'])
  })
  it('forDisplay: normal user/assistant, display, bookmark; no system, tool or metadata', () => {
    expect(ids(forDisplay(everyKind))).toEqual(['u1', 'a1', 'a2', 'disp', 'book'])
  })
  it("forDisplay keeps an assistant message's tool calls as they are", () => {
    expect(forDisplay(everyKind)[1]).toBe(everyKind[3])
  })
  it('forExport: normal, display, bookmark; no synthetic, ephemeral or metadata', () => {
    expect(ids(forExport(everyKind))).toEqual(['sys', 'u1', 'a1', 't1', 'a2', 'disp', 'book'])
  })
  it('forExportStructured: forExport plus metadata', () => {
    expect(ids(forExportStructured(everyKind))).toEqual(['sys', 'u1', 'a1', 't1', 'a2', 'disp', 'book', 'meta'])
  })
  it('forSave: everything but ephemeral', () => {
    expect(ids(forSave(everyKind))).toEqual(['sys', 'u1', 'syn', 'a1', 't1', 'a2', 'disp', 'book', 'meta'])
  })
  it('forPreservation: normal only', () => {
    expect(ids(forPreservation(everyKind))).toEqual(['sys', 'u1', 'a1', 't1', 'a2'])
  })
  it('forCompaction: normal only, without reasoning', () => {
    const v = forCompaction(100)(everyKind)
    expect(ids(v)).toEqual(['sys', 'u1', 'a1', 't1', 'a2'])
    expect(v.some((m) => m.parts.some((p) => p.type === 'reasoning'))).toBe(false)
  })
  it('without* filters drop exactly their kinds', () => {
    expect(ids(forSave(everyKind))).toEqual(['sys', 'u1', 'syn', 'a1', 't1', 'a2', 'disp', 'book', 'meta'])
    expect(ids(withoutInternal(everyKind))).toEqual(['sys', 'u1', 'syn', 'a1', 't1', 'eph', 'a2'])
    expect(ids(withoutSynthetic(everyKind))).toEqual(['sys', 'u1', 'a1', 't1', 'eph', 'a2', 'disp', 'book', 'meta'])
  })
})

describe('pair safety', () => {
  it('a dropped ephemeral result takes its call with it; other calls stay', () => {
    for (const v of [forPreservation, forSave, forExport, forCompaction(1000)]) {
      const out = v(everyKind)
      const a1 = out.find((m) => m.id === 'a1')
      expect(a1?.parts.filter((p) => p.type === 'tool_call').map((p) => p.type === 'tool_call' && p.id)).toEqual(['c1'])
      expect(validateToolPairs(out).valid).toBe(true)
    }
  })
  it('an assistant message left with nothing but reasoning goes too', () => {
    const h = [
      msg('u', 'user', [txt('q')]),
      msg('a', 'assistant', [think('hmm', 's'), call('c9')]),
      msg('t', 'tool', [result('c9')], 'ephemeral'),
      msg('a2', 'assistant', [txt('ok')]),
    ]
    expect(ids(forPreservation(h))).toEqual(['u', 'a2'])
    expect(ids(forSave(h))).toEqual(['u', 'a2'])
  })
  it('a dropped call takes its results with it', () => {
    const h = [msg('a', 'assistant', [call('c1')], 'synthetic'), msg('t', 'tool', [result('c1')]), msg('u', 'user', [txt('q')])]
    expect(ids(forPreservation(h))).toEqual(['u'])
  })
  it('a matching id in another turn is left alone', () => {
    const h = [
      msg('a', 'assistant', [call('c1')]),
      msg('t', 'tool', [result('c1')]),
      msg('u', 'user', [txt('q')]),
      msg('a2', 'assistant', [txt('x'), call('c1')], 'ephemeral'),
      msg('t2', 'tool', [result('c1')], 'ephemeral'),
    ]
    const v = forPreservation(h)
    expect(ids(v)).toEqual(['a', 't', 'u'])
    expect(v[0]).toBe(h[0])
  })
})

describe('identity and untouched messages', () => {
  it('returns the input itself when the view keeps everything', () => {
    const normal = everyKind.filter((m) => m.kind === 'normal')
    for (const v of [forLLM, forExport, forExportStructured, forSave, forPreservation, withoutInternal, withoutSynthetic]) {
      expect(v(normal)).toBe(normal)
    }
    const plain = [msg('u', 'user', [txt('hi')]), msg('a', 'assistant', [txt('yo')])]
    expect(forDisplay(plain)).toBe(plain)
    expect(withoutThinking(plain)).toBe(plain)
    expect(forCompaction(10)(plain)).toBe(plain)
  })
  it('keeps untouched messages by identity', () => {
    const v = forLLM(everyKind)
    v.forEach((m) => expect(everyKind).toContain(m))
  })
})

describe('forCompaction', () => {
  it('cuts tool results to at most maxResultLen characters, saying so', () => {
    const h = [msg('a', 'assistant', [call('c1')]), msg('t', 'tool', [result('c1', 'x'.repeat(5000))])]
    const p = forCompaction(200)(h)[1]?.parts[0]
    expect(p?.type === 'tool_result' && p.content.length).toBeLessThanOrEqual(200)
    expect(p?.type === 'tool_result' && p.content).toMatch(/\[truncated 5000 chars/)
  })
  it('normalises maxResultLen: negative or NaN is 0', () => {
    const h = [msg('a', 'assistant', [call('c1')]), msg('t', 'tool', [result('c1', 'abc')])]
    for (const n of [-5, Number.NaN, 0.5]) {
      const p = forCompaction(n)(h)[1]?.parts[0]
      expect(p?.type === 'tool_result' && p.content).toBe('')
    }
  })
  it('never splits a surrogate pair', () => {
    const h = [msg('t', 'tool', [result('c1', '😀'.repeat(100))])]
    const p = forCompaction(41)(h)[0]?.parts[0]
    const content = p?.type === 'tool_result' ? toolResultText(p) : ''
    expect(content.length).toBeLessThanOrEqual(41)
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(content)).toBe(false)
  })
})

describe('withoutThinking', () => {
  it('drops reasoning parts and their signatures, keeping every message', () => {
    const v = withoutThinking(everyKind)
    expect(v.length).toBe(everyKind.length)
    expect(v[3]?.parts).toEqual([txt('Reading.'), call('c1'), call('c2', 'bash')])
    expect(JSON.stringify(v)).not.toContain('sig1')
    expect(v[0]).toBe(everyKind[0])
  })
})

describe('lastTurns', () => {
  // sys, u1 (turn 1), syn, a1, t1, eph, a2, disp, book, meta
  it('keeps the last n turns, a turn starting at a normal user message', () => {
    const h = [...everyKind, msg('u2', 'user', [txt('Next')]), msg('a3', 'assistant', [txt('Sure.')])]
    expect(ids(lastTurns(1)(h))).toEqual(['u2', 'a3'])
    expect(ids(lastTurns(2)(h))).toEqual(ids(h.slice(1)))
    expect(ids(lastTurns(9)(h))).toEqual(ids(h.slice(1)))
  })
  it('gives the input itself when it starts with the first turn kept, nothing for 0 or no turn, and normalises n', () => {
    const h = everyKind.slice(1)
    expect(lastTurns(3)(h)).toBe(h)
    expect(lastTurns(0)(h)).toEqual([])
    expect(lastTurns(-2)(h)).toEqual([])
    expect(lastTurns(1.7)(h)).toBe(h)
    expect(lastTurns(Infinity)(h)).toBe(h)
    expect(lastTurns(2)([everyKind[0] as Message])).toEqual([])
  })
  it('starts no turn at a user message of tool results only, nor at a compaction summary', () => {
    const h = [
      msg('u1', 'user', [txt('List')]),
      msg('a1', 'assistant', [call('c1')]),
      msg('r1', 'user', [result('c1')]),
      msg('sum', 'user', [txt('## Goal')], 'normal', { metadata: { compaction: { summarised: 3 } } }),
      msg('a2', 'assistant', [txt('Done')]),
    ]
    expect(lastTurns(1)(h)).toBe(h)
  })
})

describe('forLLM after provider compactions', () => {
  const boundary = (id: string, kind: Message['kind'] = 'normal'): Message =>
    msg(id, 'assistant', [txt(`before ${id}`), {
      type: 'provider',
      provider: 'anthropic',
      kind: 'compaction',
      data: { type: 'compaction', content: `summary ${id}` },
    }], kind)

  it('starts at the last boundary sent to the model, keeping the system messages before it', () => {
    const h = [
      msg('s', 'system', [txt('Be brief.')]),
      msg('u1', 'user', [txt('one')]),
      boundary('b1'),
      msg('u2', 'user', [txt('two')]),
      boundary('b2'),
      msg('u3', 'user', [txt('three')]),
      boundary('b3', 'display'),
    ]
    const view = forLLM(h)
    expect(ids(view)).toEqual(['s', 'b2', 'u3'])
    expect(view[1]?.parts.map((p) => p.type)).toEqual(['provider'])
  })
})
