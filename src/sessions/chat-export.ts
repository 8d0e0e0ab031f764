/**
 * What reading a chat export gives: one read per conversation, and how the command line joins them
 * into one history (each conversation opened by a `metadata` message naming it).
 *
 * @module
 */
import type { Message } from '../message/message.ts'
import type { SessionRead } from './session-read.ts'

/**
 * One conversation of a chat export (the ChatGPT data export, the Claude.ai export): its id, its
 * title and when it was started, and what reading it gave.
 *
 * @example
 * import type { ChatExportConversation } from 'chatfold/sessions'
 * const c: ChatExportConversation = { id: 'c1', title: 'Rounding', read: { messages: [], archive: [], notes: [], skipped: [] } }
 *
 * @since 0.1.0
 * @category adapters
 */
export type ChatExportConversation = { readonly id: string; readonly title?: string; readonly createdAt?: string; readonly read: SessionRead }

/**
 * The conversations of an export as one history, one after another: each opened by a `metadata`
 * message (never sent to a model) with `metadata.conversation = { id, title? }`, its notes prefixed
 * with its title. One conversation reads as it is.
 *
 * @example
 * import { joinConversations } from 'chatfold/sessions'
 * const one = joinConversations([{ id: 'c1', read: { messages: [], archive: [], notes: [], skipped: [] } }])
 * // { messages: [], archive: [], notes: [], skipped: [] }
 *
 * @since 0.1.0
 * @category adapters
 */
export const joinConversations = (cs: ReadonlyArray<ChatExportConversation>): SessionRead => {
  if (cs.length === 1) return (cs[0] as ChatExportConversation).read
  const messages: Message[] = []
  const archive: Message[] = []
  const notes: string[] = []
  for (const c of cs) {
    const conversation = { id: c.id, ...(c.title === undefined ? {} : { title: c.title }) }
    messages.push({
      id: `${c.id}:conversation`,
      role: 'system',
      kind: 'metadata',
      parts: [],
      ...(c.createdAt === undefined ? {} : { createdAt: c.createdAt }),
      metadata: { conversation },
    })
    messages.push(...c.read.messages)
    archive.push(...c.read.archive)
    for (const n of c.read.notes) notes.push(`${c.title ?? c.id}: ${n}`)
  }
  return { messages, archive, notes: [`${cs.length} conversations read one after another, each opened by a metadata message naming it`, ...notes], skipped: [] }
}
