/**
 * What a session prune's changes must equal: the changes between two histories found by walking
 * both whole (the engine finds them from its pruners' changes instead). A test oracle.
 */
import type { Message, Messages } from '../../src/message/message.ts'
import type { MessageChange } from '../../src/engine/types.ts'

/**
 * What turned `before` into `after` (same positions: messages replaced by identity) and the change
 * in tokens; a history of another length is reported whole. One walk over the whole history: what
 * a session prune's changes must equal (it finds them from the pruners' changes instead).
 */
export const diffHistories = (
  before: Messages,
  after: Messages,
  count: (m: Message) => number,
): { readonly changes: ReadonlyArray<MessageChange>; readonly length: number; readonly delta: number } => {
  const changes: MessageChange[] = []
  let delta = 0
  if (before.length === after.length) {
    for (let i = 0; i < after.length; i++) {
      const a = before[i] as Message
      const b = after[i] as Message
      if (a !== b) {
        changes.push({ index: i, message: b })
        delta += count(b) - count(a)
      }
    }
  } else {
    for (let i = 0; i < after.length; i++) changes.push({ index: i, message: after[i] as Message })
    for (const m of after) delta += count(m)
    for (const m of before) delta -= count(m)
  }
  return { changes, length: after.length, delta }
}
