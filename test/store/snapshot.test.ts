import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { emptyState } from '../../src/store/state.ts'
import { ChatSnapshotC, fromSnapshot, toChatMessages, toSnapshot } from '../../src/store/snapshot.ts'
import { getConversation } from '../../src/store/query.ts'
import { textMessage } from '../../src/message/message.ts'
import { applyAll, chat } from './helpers.ts'

const state = applyAll(emptyState({ maxHistorySize: 2 }), [
  chat('1', 'user', 'one', 1, { metadata: { model: 'x' } }),
  chat('2', 'assistant', [{ type: 'text', text: 'two' }], 2),
  chat('3', 'user', 'three', 3, { conversation_id: '__proto__' }),
  chat('4', 'user', 'four', 4),
])

const paths = (u: unknown) => {
  const r = fromSnapshot(u)
  return E.isLeft(r) ? r.left.map((i) => i.path) : []
}

describe('snapshot', () => {
  const snap = toSnapshot(state)

  it('has the seed fields in their wire names', () => {
    expect(snap.modality_type).toBe('chat')
    expect(snap.update_count).toBe(4)
    expect(snap.max_history_size).toBe(2)
    expect(snap.default_conversation_id).toBe('default')
    expect(snap.last_updated).toBe('2024-03-15T10:04:00.000Z')
    expect(Object.keys(snap.conversations)).toEqual(['__proto__', 'default'])
    expect(snap.conversations['default']).toEqual({
      conversation_id: 'default',
      created_at: '2024-03-15T10:01:00.000Z',
      last_message_at: '2024-03-15T10:04:00.000Z',
      message_count: 3,
      participant_roles: ['user', 'assistant'],
    })
  })

  it('lists the held messages chronologically with content as sent', () => {
    expect(snap.messages).toEqual([
      {
        message_id: '2',
        conversation_id: 'default',
        role: 'assistant',
        content: [{ type: 'text', text: 'two' }],
        timestamp: '2024-03-15T10:02:00.000Z',
        input_id: '2',
      },
      { message_id: '3', conversation_id: '__proto__', role: 'user', content: 'three', timestamp: '2024-03-15T10:03:00.000Z', input_id: '3' },
      { message_id: '4', conversation_id: 'default', role: 'user', content: 'four', timestamp: '2024-03-15T10:04:00.000Z', input_id: '4' },
    ])
    expect(ChatSnapshotC.is(JSON.parse(JSON.stringify(snap)))).toBe(true)
  })

  it('writes no limit as null', () => {
    expect(toSnapshot(emptyState({ maxHistorySize: Infinity })).max_history_size).toBeNull()
    const back = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(emptyState({ maxHistorySize: Infinity })))))
    expect(E.isRight(back) && back.right.maxHistorySize).toBe(Infinity)
  })
})

describe('fromSnapshot', () => {
  const wire = JSON.parse(JSON.stringify(toSnapshot(state))) as Record<string, unknown> & {
    messages: Array<Record<string, unknown>>
    conversations: Record<string, Record<string, unknown>>
  }

  it('round-trips, __proto__ conversation ids included', () => {
    const r = fromSnapshot(wire)
    expect(E.isRight(r) ? toSnapshot(r.right) : r).toEqual(toSnapshot(state))
    expect(E.isRight(r) ? getConversation('__proto__')(r.right).length : 0).toBe(1)
  })

  it('accepts messages in any order', () => {
    expect(E.isRight(fromSnapshot({ ...wire, messages: [...wire.messages].reverse() }))).toBe(true)
  })

  it('reports bad fields by path', () => {
    expect(paths({ ...wire, update_count: -1, messages: [{ ...wire.messages[0], role: 'bot' }] })).toEqual(['update_count', 'messages[0].role'])
    expect(paths({ ...wire, conversations: { ...wire.conversations, default: { ...wire.conversations['default'], message_count: 'x' } } })).toEqual([
      'conversations["default"].message_count',
    ])
    expect(paths(null)).toEqual([''])
  })

  it('reports duplicates, unknown conversations and mismatched ids', () => {
    expect(paths({ ...wire, messages: [...wire.messages, wire.messages[0]] })).toEqual(['messages[3].message_id'])
    expect(paths({ ...wire, messages: [{ ...wire.messages[0], conversation_id: 'ghost' }] })).toEqual(['messages[0].conversation_id'])
    expect(paths({ ...wire, conversations: { ...wire.conversations, default: { ...wire.conversations['default'], conversation_id: 'other' } } })).toEqual([
      'conversations["default"].conversation_id',
    ])
  })

  it('checks the invariants: limits and counts', () => {
    expect(paths({ ...wire, max_history_size: 1 })).toEqual(expect.arrayContaining(['conversations["default"].messages']))
    expect(paths({ ...wire, update_count: 1 })).toEqual(['update_count'])
  })
})

describe('toChatMessages', () => {
  it('gives the wire form of held messages and leaves out the others', () => {
    const held = getConversation('default')(state)
    expect(toChatMessages(state)([textMessage('user', 'not held', { id: 'zz' }), ...held]).map((m) => m.message_id)).toEqual(['2', '4'])
  })
})
