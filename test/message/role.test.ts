import { describe, expect, it } from 'vitest'
import { isRole, RoleC, RoleOrd, roles } from '../../src/message/role.ts'
import * as E from 'fp-ts/Either'

describe('role', () => {
  it('accepts the four roles (seed Role.Valid)', () => {
    for (const r of ['system', 'user', 'assistant', 'tool']) expect(isRole(r)).toBe(true)
  })
  it('rejects anything else', () => {
    for (const r of ['', 'bot', 'User', 'developer', 1, null, undefined, {}]) expect(isRole(r)).toBe(false)
  })
  it('the codec names the role union in its failure', () => {
    const r = RoleC.decode('bot')
    expect(E.isLeft(r)).toBe(true)
    expect(RoleC.name).toBe('Role')
  })
  it('orders roles system, user, assistant, tool', () => {
    expect([...roles].reverse().sort(RoleOrd.compare)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(RoleOrd.equals('user', 'user')).toBe(true)
  })
})
