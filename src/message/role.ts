/**
 * Conversation roles: who speaks in a message.
 *
 * @module
 */
import * as t from 'io-ts'
import type { Ord } from 'fp-ts/Ord'

// --- codecs ---

/**
 * The codec of `Role`: one of `'system' | 'user' | 'assistant' | 'tool'`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const RoleC: t.KeyofC<{ system: null; user: null; assistant: null; tool: null }> = t.keyof(
  { system: null, user: null, assistant: null, tool: null },
  'Role',
)

/**
 * Who speaks in a message.
 *
 * @since 0.1.0
 * @category model
 */
export type Role = t.TypeOf<typeof RoleC>

/**
 * Every role, in conversation order (system first).
 *
 * @since 0.1.0
 * @category model
 */
export const roles: ReadonlyArray<Role> = ['system', 'user', 'assistant', 'tool']

// --- refinements ---

/**
 * Whether `u` is one of the four roles.
 *
 * @example
 * import { isRole } from 'chatfold/message'
 * isRole('assistant') // true
 * isRole('bot') // false
 *
 * @since 0.1.0
 * @category refinements
 */
export const isRole = (u: unknown): u is Role => RoleC.is(u)

// --- instances ---

/**
 * Orders roles as `roles` lists them: system, user, assistant, tool.
 *
 * @since 0.1.0
 * @category instances
 */
export const RoleOrd: Ord<Role> = {
  equals: (a, b) => a === b,
  compare: (a, b) => {
    const d = roles.indexOf(a) - roles.indexOf(b)
    return d < 0 ? -1 : d > 0 ? 1 : 0
  },
}
