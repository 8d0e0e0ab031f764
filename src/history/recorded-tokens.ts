/**
 * The token counts a history records on its messages, added up.
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import type { Messages } from '../message/message.ts'

/**
 * The sum of the messages' recorded `tokens.total`; a message without
 * `tokens` counts 0.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { totalTokens } from 'chatfold/history'
 * totalTokens([textMessage('user', 'hi', { tokens: { total: 3 } }), textMessage('assistant', 'yo', { tokens: { total: 5 } })]) // 8
 *
 * @since 0.1.0
 * @category tokens
 */
export const totalTokens = (ms: Messages): number => {
  let t = 0
  for (const m of ms) t += m.tokens?.total ?? 0
  return t
}

/**
 * The recorded tokens of the messages that take up context: like
 * `totalTokens`, but display-only, bookmark and metadata messages, which never reach a model,
 * count 0.
 *
 * @example
 * import { textMessage } from 'chatfold/message'
 * import { tokensForEstimation } from 'chatfold/history'
 * tokensForEstimation([textMessage('user', 'hi', { tokens: { total: 3 } }), textMessage('assistant', 'Saved', { kind: 'display', tokens: { total: 2 } })]) // 3
 *
 * @since 0.1.0
 * @category tokens
 */
export const tokensForEstimation = (ms: Messages): number => {
  let t = 0
  for (const m of ms) if (!isInternal(m)) t += m.tokens?.total ?? 0
  return t
}
