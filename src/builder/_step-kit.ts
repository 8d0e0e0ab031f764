/**
 * The pieces every builder step is made of: a new message's id (from the state's counter), its
 * time stamps and token field, and the results of a step that changes nothing or warns.
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import type { BuilderInput, BuilderState, StepResult } from './types.ts'

/**
 * The id the next message gets when its input names none. Every new message advances the
 * counter, even one given its own id, so an id read here never collides with a later one.
 *
 * @since 0.1.0
 * @category queries
 */
export const nextId = (state: BuilderState): string => `${state.idPrefix}${state.seq}`

/** Takes the id for a new message (the given one, or the next generated one) and advances the counter. */
export const claimId = (state: BuilderState, id: string | undefined): readonly [string, BuilderState] => [
  id ?? nextId(state),
  { ...state, seq: state.seq + 1 },
]

/** `createdAt`/`updatedAt` for a new message made at `at`, when known. */
export const stamp = (at: string | undefined): { readonly createdAt?: string; readonly updatedAt?: string } =>
  at === undefined ? {} : { createdAt: at, updatedAt: at }

/** Moves `updatedAt` to `at`, when known. */
export const touch = (m: Message, at: string | undefined): Message => (at === undefined ? m : { ...m, updatedAt: at })

/** `tokens: { total }` for a positive estimate, nothing otherwise. */
export const tokenField = (estimated: number | undefined): { readonly tokens?: { readonly total: number } } =>
  estimated !== undefined && Number.isFinite(estimated) && estimated > 0 ? { tokens: { total: Math.round(estimated) } } : {}

/** A step that changed nothing. */
export const unchanged = (state: BuilderState): StepResult => ({ state, events: [] })

/** A step that ignored its input and says why. */
export const warn = (state: BuilderState, cause: BuilderInput['type'], detail: string): StepResult => ({
  state,
  events: [{ type: 'warning', cause, detail }],
})
