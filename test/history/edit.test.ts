import { describe, expect, it } from 'vitest'
import * as O from 'fp-ts/Option'
import { at, last } from '../../src/history/lookup.ts'
import {
  append,
  clear,
  deduplicateSystem,
  dropN,
  keepFirstByRole,
  pruneEmptyAssistant,
  trimDuplicateSynthetics,
  truncated,
  truncateResults,
} from '../../src/history/edit.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { forSave, withoutSynthetic } from '../../src/history/views.ts'
import { call, everyKind, ids, msg, result, think, txt } from './fixtures.ts'

describe('append, clear, dropN', () => {
  it('append adds at the end, and is the identity for nothing', () => {
    const h = [msg('a', 'user', [txt('a')])]
    expect(ids(append([msg('b', 'user', [txt('b')])])(h))).toEqual(['a', 'b'])
    expect(append([])(h)).toBe(h)
  })
  it('clear keeps only the first message (seed Clear)', () => {
    expect(ids(clear(everyKind))).toEqual(['sys'])
    const one = [msg('s', 'system', [txt('x')])]
    expect(clear(one)).toBe(one)
    expect(clear([])).toEqual([])
  })
  it('dropN removes the n newest messages (seed DropN)', () => {
    expect(ids(dropN(3)(everyKind))).toEqual(['sys', 'u1', 'syn', 'a1', 't1', 'eph', 'a2'])
    expect(dropN(0)(everyKind)).toBe(everyKind)
    expect(dropN(-2)(everyKind)).toBe(everyKind)
    expect(dropN(Number.NaN)(everyKind)).toBe(everyKind)
    expect(dropN(2.9)(everyKind).length).toBe(everyKind.length - 2)
    expect(dropN(99)(everyKind)).toEqual([])
  })
  it('dropN through a turn takes the calls whose results went', () => {
    const out = dropN(5)(everyKind) // cuts after t1: eph goes, so c2 goes from a1
    expect(ids(out)).toEqual(['sys', 'u1', 'syn', 'a1', 't1'])
    expect(out[3]?.parts.filter((p) => p.type === 'tool_call')).toEqual([call('c1')])
    expect(validateToolPairs(out).valid).toBe(true)
  })
})

describe('keepFirstByRole, deduplicateSystem', () => {
  it('keeps the first message of a role and drops its later ones', () => {
    const h = [msg('s1', 'system', [txt('A')]), msg('u', 'user', [txt('q')]), msg('s2', 'system', [txt('B')]), msg('u2', 'user', [txt('r')])]
    expect(ids(keepFirstByRole('system')(h))).toEqual(['s1', 'u', 'u2'])
    expect(ids(deduplicateSystem(h))).toEqual(['s1', 'u', 'u2'])
    expect(ids(keepFirstByRole('user')(h))).toEqual(['s1', 'u', 's2'])
    expect(keepFirstByRole('tool')(h)).toBe(h)
  })
})

describe('last, at', () => {
  it('look up by position, as Option', () => {
    expect(last(everyKind)).toEqual(O.some(everyKind[everyKind.length - 1]))
    expect(last([])).toEqual(O.none)
    expect(at(1)(everyKind)).toEqual(O.some(everyKind[1]))
    for (const i of [-1, 10, 1.5, Number.NaN]) expect(at(i)(everyKind)).toEqual(O.none)
  })
})

describe('pruneEmptyAssistant', () => {
  it('removes assistant messages with no content, thinking or calls (seed)', () => {
    const h = [
      msg('u', 'user', [txt('')]),
      msg('a', 'assistant', [txt('  '), { type: 'finish', reason: 'end_turn' }]),
      msg('b', 'assistant', [think('x')]),
      msg('c', 'assistant', [call('c1')]),
    ]
    expect(ids(pruneEmptyAssistant(h))).toEqual(['u', 'b', 'c'])
    expect(pruneEmptyAssistant(everyKind)).toBe(everyKind)
  })
})

describe('trimDuplicateSynthetics', () => {
  it('keeps the newest copy of each synthetic message', () => {
    const h = [
      msg('r1', 'user', [txt('Run the tests.')], 'synthetic'),
      msg('u', 'user', [txt('q')]),
      msg('r2', 'user', [txt('Keep edits small.')], 'synthetic'),
      msg('r3', 'user', [txt('Run the tests.')], 'synthetic'),
      msg('n', 'user', [txt('Run the tests.')]),
    ]
    expect(ids(trimDuplicateSynthetics(h))).toEqual(['u', 'r2', 'r3', 'n'])
    expect(trimDuplicateSynthetics(everyKind)).toBe(everyKind)
  })
})

// forSave and withoutSynthetic took over what ejectEphemeral and ejectSynthetic did (one name per
// concept); the assertions are those of the removed synonyms.
describe('forSave, withoutSynthetic', () => {
  it('ejects ephemeral results with the calls that produced them', () => {
    const out = forSave(everyKind)
    expect(ids(out)).toEqual(['sys', 'u1', 'syn', 'a1', 't1', 'a2', 'disp', 'book', 'meta'])
    expect(out[3]?.parts).toEqual([think('look first', 'sig1'), txt('Reading.'), call('c1')])
    expect(validateToolPairs(out).valid).toBe(true)
  })
  it('an assistant message left with no call and no content goes too', () => {
    const h = [msg('u', 'user', [txt('q')]), msg('a', 'assistant', [call('c1')]), msg('t', 'tool', [result('c1')], 'ephemeral')]
    expect(ids(forSave(h))).toEqual(['u'])
  })
  it('withoutSynthetic removes synthetic messages', () => {
    expect(ids(withoutSynthetic(everyKind))).not.toContain('syn')
    expect(withoutSynthetic(everyKind).length).toBe(everyKind.length - 1)
  })
})

describe('truncateResults, truncated', () => {
  const big = [msg('a', 'assistant', [call('c1')]), msg('t', 'tool', [result('c1', 'y'.repeat(300))]), msg('u', 'user', [txt('z'.repeat(300))])]
  it('truncateResults cuts tool results only', () => {
    const out = truncateResults(100)(big)
    const p = out[1]?.parts[0]
    expect(p?.type === 'tool_result' && p.content.length).toBeLessThanOrEqual(100)
    expect(p?.type === 'tool_result' && p.content).toContain('[truncated 300 chars')
    expect(out[2]).toBe(big[2])
    expect(truncateResults(1000)(big)).toBe(big)
  })
  it('a limit too small for the marker cuts plainly', () => {
    const p = truncateResults(5)(big)[1]?.parts[0]
    expect(p?.type === 'tool_result' && p.content).toBe('yyyyy')
  })
  it('truncated drops ephemeral messages and cuts results', () => {
    const out = truncated(10)(everyKind)
    expect(ids(out)).not.toContain('eph')
    expect(out.every((m) => m.parts.every((p) => p.type !== 'tool_result' || p.content.length <= 10))).toBe(true)
  })
})
