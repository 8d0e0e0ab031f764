import { describe, expect, it } from 'vitest'
import { hasSubstance, isBlank } from '../../src/history/_substance.ts'
import { stringSet } from '../../src/history/_string-set.ts'
import { truncator } from '../../src/history/_truncate.ts'

describe('stringSet', () => {
  it('says whether each string is new, across growth', () => {
    const s = stringSet()
    const words = Array.from({ length: 5000 }, (_, i) => `call_${i % 97}_${Math.floor(i / 97)}`)
    for (const w of words) expect(s.add(w)).toBe(true)
    for (const w of words) expect(s.add(w)).toBe(false)
    for (const w of words) expect(s.has(w)).toBe(true)
    expect(s.has('call_0_999')).toBe(false)
  })

  it('holds the empty string and strings that differ only in surrogates', () => {
    const s = stringSet()
    expect(s.has('')).toBe(false)
    expect(s.add('')).toBe(true)
    expect(s.add('')).toBe(false)
    expect(s.add('\uD83D\uDE00')).toBe(true)
    expect(s.add('\uD83D\uDE01')).toBe(true)
    expect(s.add('\uD83D\uDE00')).toBe(false)
    expect(s.has('')).toBe(true)
  })
})

describe('isBlank', () => {
  it('agrees with trim on every UTF-16 unit, alone and around text', () => {
    // the units where it disagrees, collected and compared once: 131,072 expect calls took seconds
    // (past vitest's 5 s beside other work) to say the same
    const disagree: string[] = []
    for (let c = 0; c <= 0xffff; c++) {
      const s = String.fromCharCode(c)
      if (isBlank(s) !== (s.trim() === '')) disagree.push(`U+${c.toString(16)} alone`)
      if (isBlank(`${s}${s}x`)) disagree.push(`U+${c.toString(16)} around text`)
    }
    expect(disagree).toEqual([])
    expect(isBlank('')).toBe(true)
  })

  it('makes a part substantive only when its text is not blank', () => {
    expect(hasSubstance([{ type: 'text', text: ' \u3000\n' }, { type: 'finish', reason: 'end_turn' }])).toBe(false)
    expect(hasSubstance([{ type: 'reasoning', text: 'why' }, { type: 'text', text: ' ok' }])).toBe(true)
    expect(hasSubstance([{ type: 'text', text: ' ' }, { type: 'tool_call', id: 'c', name: 'n', arguments: '{}', status: 'complete' }])).toBe(true)
  })
})

describe('truncator', () => {
  it('keeps short strings, marks what it cut, and never splits a surrogate pair', () => {
    const cut = truncator(40)
    const s = 'x'.repeat(40)
    expect(cut(s)).toBe(s)
    expect(cut('y'.repeat(100))).toBe(`${'y'.repeat(12)}\n[truncated 100 chars to 40]`) // 12 + a 28-unit marker
    const emoji = 'a'.repeat(10) + '\u{1F600}'.repeat(40) // 13 units would end inside the second pair
    expect(cut(emoji)).toBe(`${'a'.repeat(10)}\u{1F600}\n[truncated 90 chars to 40]`)
    expect(truncator(5)('z'.repeat(30))).toBe('zzzzz') // no room for the marker
  })
})
