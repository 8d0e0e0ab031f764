/**
 * Making a builder state, the id counter, and the small helpers every step shares.
 *
 * @module
 */
import { hasKind, hasRole, textContent } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import type { BuilderInput, BuilderState, StepResult } from './types.ts'

// --- constructors ---

/**
 * How a builder starts: a system prompt (no system message when empty) with its precomputed token
 * count, the prefix of generated message ids, and the time to stamp on the system message.
 *
 * @since 0.1.0
 * @category constructors
 */
export type BuilderStateOptions = {
  readonly systemPrompt?: string
  readonly systemTokens?: number
  readonly idPrefix?: string
  readonly at?: string
}

/**
 * A fresh builder state: a history with the system prompt (when one is given) and nothing open.
 * Generated ids are `idPrefix` followed by a counter (`m1`, `m2`, … by default), so a state is
 * fully determined by its options and inputs.
 *
 * @example
 * import { makeBuilderState } from 'chatfold/builder'
 * makeBuilderState({ systemPrompt: 'You are terse.', systemTokens: 4 }).history.length // 1
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeBuilderState = (options: BuilderStateOptions = {}): BuilderState => {
  const empty: BuilderState = { history: [], results: [], idPrefix: options.idPrefix ?? 'm', seq: 1 }
  const prompt = options.systemPrompt ?? ''
  if (prompt === '') return empty
  const system: Message = {
    id: nextId(empty),
    role: 'system',
    kind: 'normal',
    parts: [{ type: 'text', text: prompt }],
    ...stamp(options.at),
    ...tokenField(options.systemTokens),
  }
  return { ...empty, history: [system], seq: empty.seq + 1 }
}

// --- queries ---

/**
 * The id the next message gets when its input names none. Every new message advances the
 * counter, even one given its own id, so an id read here never collides with a later one.
 *
 * @since 0.1.0
 * @category queries
 */
export const nextId = (state: BuilderState): string => `${state.idPrefix}${state.seq}`

/**
 * One user or assistant turn as plain text.
 *
 * @since 0.1.0
 * @category model
 */
export type Turn = { readonly role: 'user' | 'assistant'; readonly text: string }

/**
 * The conversation as user/assistant text turns: normal user and assistant messages that have
 * text, and nothing else (no system, tool, synthetic, ephemeral or internal messages).
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { turns } from 'chatfold/builder'
 * turns([textMessage('system', 'Be brief.'), textMessage('user', 'Hi'), textMessage('assistant', 'Hello')])
 * // [{ role: 'user', text: 'Hi' }, { role: 'assistant', text: 'Hello' }]
 *
 * @since 0.1.0
 * @category queries
 */
export const turns = (ms: Messages): ReadonlyArray<Turn> => {
  const out: Turn[] = []
  for (const m of ms) {
    if (!hasKind('normal')(m) || !(hasRole('user')(m) || hasRole('assistant')(m))) continue
    const text = textContent(m)
    if (text !== '') out.push({ role: hasRole('user')(m) ? 'user' : 'assistant', text })
  }
  return out
}

/** The text of the first normal system message, or '' when there is none. */
export const systemText = (ms: Messages): string => {
  const m = ms.find((x) => hasRole('system')(x) && hasKind('normal')(x))
  return m === undefined ? '' : textContent(m)
}

// --- helpers ---

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
