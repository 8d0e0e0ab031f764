import { describe, expect, it } from 'vitest'
import * as t from 'io-ts'
import { decodeIssue, failureFromErrors, formatDecodeFailure, prefixFailure, showActual } from '../../src/message/failure.ts'

describe('decode failures', () => {
  it('renders one line per issue, root as (root)', () => {
    expect(formatDecodeFailure([...decodeIssue('', 'string', 1), ...decodeIssue('[2].a', 'number', 'x')])).toBe(
      '(root): expected string, got 1\n[2].a: expected number, got "x"',
    )
  })

  it('prefixes paths: fields with a dot, indexes directly, labels with a space', () => {
    expect(prefixFailure('messages')(decodeIssue('[3].role', 'Role', 'bot'))[0]?.path).toBe('messages[3].role')
    expect(prefixFailure('input')(decodeIssue('role', 'Role', 'bot'))[0]?.path).toBe('input.role')
    expect(prefixFailure('line 4:')(decodeIssue('role', 'Role', 'bot'))[0]?.path).toBe('line 4: role')
    expect(prefixFailure('line 4:')(decodeIssue('', 'JSON', 'x'))[0]?.path).toBe('line 4')
  })

  it('walks io-ts contexts through arrays, objects, odd keys, unions and intersections', () => {
    const C = t.array(t.intersection([t.type({ a: t.string }), t.partial({ 'b-c': t.union([t.number, t.null]) })]))
    const r = C.decode([{ a: 'ok' }, { a: 1, 'b-c': 'no' }])
    if (r._tag === 'Right') throw new Error('expected failure')
    const paths = failureFromErrors(r.left).map((i) => i.path)
    expect(paths).toContain('[1].a')
    expect(paths).toContain('[1]["b-c"]')
  })

  it('shows actual values briefly and safely', () => {
    expect(showActual(undefined)).toBe('undefined')
    expect(showActual('x'.repeat(500)).length).toBeLessThanOrEqual(81)
    expect(showActual(new Uint8Array(3))).toBe('Uint8Array(3)')
    const cyc: Record<string, unknown> = {}
    cyc['x'] = cyc
    expect(showActual(cyc)).toBe('an object')
    expect(showActual(10n)).toBe('10n')
  })
})
