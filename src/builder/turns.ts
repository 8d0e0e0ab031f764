/**
 * A conversation read as plain text turns: what the user and the assistant said.
 *
 * @module
 */
import { hasKind, hasRole, textContent } from '../message/accessors.ts'
import type { Messages } from '../message/message.ts'

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
