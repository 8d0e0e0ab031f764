import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { emptyState } from '../../src/store/state.ts'
import { toSnapshot } from '../../src/store/snapshot.ts'
import { fromStoreMessages, STORE_HEADER_ID, toStoreMessages } from '../../src/store/persist.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { forSave } from '../../src/history/views.ts'
import { type Message, textMessage } from '../../src/message/message.ts'
import { applyAll, chat } from './helpers.ts'

const state = applyAll(emptyState({ maxHistorySize: 3 }), [
  chat('1', 'user', 'one', 1, { metadata: { chat: 'the input owns this key too' } }),
  chat('2', 'assistant', [{ type: 'image', source: 'base64', data: 'AAEC' }], 2, { conversation_id: 'x' }),
])

describe('toStoreMessages', () => {
  const ms = toStoreMessages(state)

  it('starts with a metadata header, then the held messages', () => {
    expect(ms.map((m) => m.id)).toEqual([STORE_HEADER_ID, '1', '2'])
    expect(ms[0]?.kind).toBe('metadata')
    expect(forSave(ms)).toBe(ms)
  })

  it('nests the input metadata, so that no key of it can clash', () => {
    expect(ms[1]?.metadata).toEqual({ chat: { input_id: '1', content: 'one', metadata: { chat: 'the input owns this key too' } } })
  })

  it('round-trips through JSONL', () => {
    const r = fromJSONL(toJSONL(ms))
    const back = E.isRight(r) ? fromStoreMessages(r.right) : r
    expect(E.isRight(back) ? toSnapshot(back.right) : back).toEqual(toSnapshot(state))
  })
})

describe('fromStoreMessages', () => {
  const ms = toStoreMessages(state)
  const paths = (xs: ReadonlyArray<Message>) => {
    const r = fromStoreMessages(xs)
    return E.isLeft(r) ? r.left.map((i) => i.path) : []
  }

  it('needs the header first', () => {
    expect(paths(ms.slice(1))).toEqual(['[0]'])
    expect(paths([])).toEqual(['[0]'])
  })

  it('points into the history: [i] is line i + 1 of a file', () => {
    const bad = ms.map((m, i) => (i === 2 ? { ...m, metadata: { chat: { input_id: '2', content: [{ type: 'gif' }] } } } : m))
    expect(paths(bad)).toEqual(['[2].metadata.chat.content[0].type'])
    const noChat = ms.map((m, i) => (i === 1 ? textMessage('user', 'plain', { id: '1', conversationId: 'default', createdAt: '2024-03-15T10:01:00Z' }) : m))
    expect(paths(noChat)).toEqual(['[1].metadata.chat'])
    const badRole = ms.map((m, i) => (i === 1 ? { ...m, role: 'tool' as const } : m))
    expect(paths(badRole)).toEqual(['[1].role'])
  })

  it('reports a bad header field under the header', () => {
    const head = ms[0]!
    const meta = head.metadata?.['chatfold_store'] as Record<string, unknown>
    const broken = [{ ...head, metadata: { chatfold_store: { ...meta, update_count: 'many' } } }, ...ms.slice(1)]
    expect(paths(broken)).toEqual(['[0].metadata.chatfold_store.update_count'])
    const future = [{ ...head, metadata: { chatfold_store: { ...meta, version: 9 } } }, ...ms.slice(1)]
    expect(paths(future)).toEqual(['[0].metadata.chatfold_store.version'])
  })
})
