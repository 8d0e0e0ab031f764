import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'

describe('sparse arrays', () => {
  it('validateInput refuses content new Array(2**32-1) at its first hole, without walking the holes', async () => {
    const { validateInput } = await import('../../src/store/input.ts')
    const r = validateInput({ modality_type: 'chat', timestamp: '2024-03-15T10:30:00Z', input_id: 'in-1', role: 'user', content: new Array(2 ** 32 - 1) })
    expect(E.isLeft(r)).toBe(true)
    if (E.isLeft(r)) expect(r.left[0]?.path).toBe('content[0]')
  }, 10_000)
})
