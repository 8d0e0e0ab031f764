import { describe, expect, it } from 'vitest'
import { stringSet } from '../../src/messages/shared.ts'

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
