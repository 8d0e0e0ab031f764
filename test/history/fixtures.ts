/** Small hand-written histories shared by the history-core tests. */
import type { Kind, Message } from '../../src/message/message.ts'
import type { Part } from '../../src/message/part-model.ts'
import type { Role } from '../../src/message/role.ts'
import { deepFreeze } from '../support/arbitraries.ts'

export const msg = (id: string, role: Role, parts: ReadonlyArray<Part>, kind: Kind = 'normal', extra: Partial<Message> = {}): Message =>
  deepFreeze({ id, role, kind, parts, ...extra })

export const txt = (text: string): Part => ({ type: 'text', text })
export const think = (
  text: string,
  signature?: string,
): Part => (signature === undefined ? { type: 'reasoning', text } : { type: 'reasoning', text, signature })
export const call = (id: string, name = 'read', args = '{}'): Part => ({ type: 'tool_call', id, name, arguments: args, status: 'complete' })
export const result = (toolCallId: string, content = 'ok', name = 'read'): Part => ({ type: 'tool_result', toolCallId, content, isError: false, name })

export const ids = (ms: ReadonlyArray<Message>): string[] => ms.map((m) => m.id)

/** One message of every kind, with a paired call and result for each of the one-turn kinds. */
export const everyKind: ReadonlyArray<Message> = deepFreeze([
  msg('sys', 'system', [txt('You are helpful.')]),
  msg('u1', 'user', [txt('Fix the test')]),
  msg('syn', 'user', [txt('Reminder: run the tests')], 'synthetic'),
  msg('a1', 'assistant', [think('look first', 'sig1'), txt('Reading.'), call('c1'), call('c2', 'bash')]),
  msg('t1', 'tool', [result('c1', 'file body')]),
  msg('eph', 'tool', [result('c2', 'error: denied', 'bash')], 'ephemeral'),
  msg('a2', 'assistant', [txt('Done.')]),
  msg('disp', 'assistant', [txt('Checkpoint saved')], 'display'),
  msg('book', 'user', [txt('Milestone 1')], 'bookmark'),
  msg('meta', 'user', [], 'metadata', { metadata: { turn: 1 } }),
])
