/**
 * A builder's starting state: the history with its system prompt, nothing open, the id counter
 * at its start.
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import type { BuilderState } from './types.ts'
import { nextId, stamp, tokenField } from './_step-kit.ts'

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
