import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { pipe } from 'fp-ts/function'
import { textContent } from '../../src/message/accessors.ts'
import { forLLM } from '../../src/history/views.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import {
  applyInput,
  applyInputs,
  type ChatState,
  conversationIds,
  DEFAULT_MAX_HISTORY_SIZE,
  emptyState,
  getConversationMetadata,
  restrictTo,
  validateState,
} from '../../src/store/state.ts'
import { getConversation, getMessageById } from '../../src/store/query.ts'
import { toChatMessages, toSnapshot } from '../../src/store/snapshot.ts'
import { fromSnapshot } from '../../src/store/snapshot.ts'
import { createChatStore } from '../../src/store/store.ts'
import { compareStrings, idKey } from '../../src/store/core.ts'
import * as T from '../../src/store/_tree.ts'
import { encodeBase64 } from '../../src/internal/base64.ts'
import { applyAll, chat } from './helpers.ts'

const texts = (s: ChatState, id = 'default') => getConversation(id)(s).map(textContent)

describe('emptyState', () => {
  it('has the seed defaults', () => {
    const s = emptyState()
    expect(s.maxHistorySize).toBe(DEFAULT_MAX_HISTORY_SIZE)
    expect(s.defaultConversationId).toBe('default')
    expect(s.updateCount).toBe(0)
    expect(s.lastUpdated).toBeUndefined()
    expect(conversationIds(s)).toEqual([])
  })
  it('normalises the history limit instead of throwing', () => {
    expect(emptyState({ maxHistorySize: 2.7 }).maxHistorySize).toBe(2)
    expect(emptyState({ maxHistorySize: -3 }).maxHistorySize).toBe(0)
    expect(emptyState({ maxHistorySize: Number.NaN }).maxHistorySize).toBe(1000)
    expect(emptyState({ maxHistorySize: Infinity }).maxHistorySize).toBe(Infinity)
    expect(emptyState({ defaultConversationId: '' }).defaultConversationId).toBe('default')
  })
})

describe('applyInput: simple text', () => {
  const input = chat('in-1', 'user', "What's the weather today?", 30, { metadata: { tokens: 7 } })
  const r = applyInput(input)(emptyState())
  const s = E.isRight(r) ? r.right : emptyState()

  it('stores a chatfold message in the default conversation', () => {
    expect(E.isRight(r)).toBe(true)
    const [m] = getConversation('default')(s)
    expect(m).toEqual({
      id: 'in-1',
      role: 'user',
      parts: [{ type: 'text', text: "What's the weather today?" }],
      kind: 'normal',
      conversationId: 'default',
      createdAt: '2024-03-15T10:30:00.000Z',
      metadata: { tokens: 7 },
    })
  })

  it('updates the counters and the conversation metadata', () => {
    expect(s.updateCount).toBe(1)
    expect(s.lastUpdated).toBe('2024-03-15T10:30:00.000Z')
    expect(getConversationMetadata('default')(s)).toEqual(
      O.some({
        conversation_id: 'default',
        created_at: '2024-03-15T10:30:00.000Z',
        last_message_at: '2024-03-15T10:30:00.000Z',
        message_count: 1,
        participant_roles: ['user'],
      }),
    )
  })

  it('leaves the old state untouched', () => {
    const before = emptyState()
    const after = applyAll(before, [input])
    expect(getConversation('default')(before)).toEqual([])
    expect(getConversation('default')(after)).toHaveLength(1)
  })

  it('uses an explicit message id when given', () => {
    const t = applyAll(emptyState(), [chat('in-2', 'assistant', 'Sunny.', 31, { message_id: 'reply-1' })])
    expect(O.map((m: { id: string }) => m.id)(getMessageById('reply-1')(t))).toEqual(O.some('reply-1'))
    expect(getMessageById('in-2')(t)).toEqual(O.none)
  })

  it('every history function applies to a conversation', () => {
    const t = applyAll(s, [chat('in-2', 'assistant', 'Sunny, 72°F.', 31)])
    const history = getConversation('default')(t)
    expect(forLLM(history)).toBe(history)
    expect(fromJSONL(toJSONL(history))).toEqual(E.right(history))
  })
})

describe('applyInput: refusals change nothing', () => {
  const s = applyAll(emptyState(), [chat('in-1', 'user', 'hi', 1)])
  it('refuses a duplicate message id', () => {
    expect(applyInput(chat('in-1', 'assistant', 'again', 2))(s)).toEqual(
      E.left({ kind: 'duplicate_message', messageId: 'in-1', conversationId: 'default' }),
    )
    // message ids are scoped to a conversation: the same id in another one is a message of its own
    const other = applyInput(chat('in-9', 'assistant', 'again', 2, { message_id: 'in-1', conversation_id: 'other' }))(s)
    expect(E.isRight(other) && getConversation('other')(other.right).map((m) => m.id)).toEqual(['in-1'])
    expect(E.isRight(other) && getConversation('default')(other.right).map((m) => m.id)).toEqual(['in-1'])
  })
  it('refuses an invalid input with every bad field', () => {
    const r = applyInput({ ...chat('in-2', 'user', 'x', 2), role: 'bot' as never, content: '' })(s)
    expect(E.isLeft(r) && r.left.kind === 'invalid_input' ? r.left.failure.map((i) => i.path) : []).toEqual(['role', 'content'])
  })
})

describe('ordering', () => {
  it('orders by timestamp when inputs arrive out of order', () => {
    const s = applyAll(emptyState(), [chat('c', 'user', 'third', 3), chat('a', 'user', 'first', 1), chat('b', 'assistant', 'second', 2)])
    expect(texts(s)).toEqual(['first', 'second', 'third'])
  })

  it('breaks timestamp ties by input id, whatever the arrival order', () => {
    const inputs = [chat('in-b', 'user', 'B', 5), chat('in-a', 'assistant', 'A', 5), chat('in-c', 'user', 'C', 5)]
    for (const order of [[0, 1, 2], [2, 1, 0], [1, 2, 0]]) {
      const s = applyAll(emptyState(), order.map((i) => inputs[i]!))
      expect(texts(s)).toEqual(['A', 'B', 'C'])
    }
  })

  it('compares instants, not strings: time zones and nanoseconds', () => {
    const at = (id: string, timestamp: string) => ({ ...chat(id, 'user', id, 0), timestamp })
    const s = applyAll(emptyState(), [
      at('x3', '2024-03-15T12:00:00+01:00'), // 11:00Z
      at('x1', '2024-03-15T10:30:00.000000002Z'),
      at('x2', '2024-03-15T10:30:00.000000010Z'),
      at('x0', '2024-03-15T10:30:00Z'),
      at('x4', '2024-03-15T11:30:00Z'),
    ])
    expect(texts(s)).toEqual(['x0', 'x1', 'x2', 'x3', 'x4'])
    expect(getConversationMetadata('default')(s)).toMatchObject(O.some({ created_at: '2024-03-15T10:30:00Z', last_message_at: '2024-03-15T11:30:00Z' }))
  })

  it('keeps created_at the earliest and last_message_at the latest with late arrivals', () => {
    const s = applyAll(emptyState(), [chat('b', 'user', 'b', 10), chat('a', 'assistant', 'a', 2)])
    const meta = getConversationMetadata('default')(s)
    expect(meta).toEqual(
      O.some({
        conversation_id: 'default',
        created_at: '2024-03-15T10:02:00.000Z',
        last_message_at: '2024-03-15T10:10:00.000Z',
        message_count: 2,
        participant_roles: ['user', 'assistant'],
      }),
    )
    expect(s.lastUpdated).toBe('2024-03-15T10:10:00.000Z')
  })
})

describe('history limits', () => {
  const limited = applyAll(
    emptyState({ maxHistorySize: 3 }),
    [1, 2, 3, 4, 5].map((i) => chat(`in-${i}`, i % 2 === 0 ? 'assistant' : 'user', `m${i}`, i)),
  )

  it('drops the oldest messages beyond the limit', () => {
    expect(texts(limited)).toEqual(['m3', 'm4', 'm5'])
    expect(getMessageById('in-1')(limited)).toEqual(O.none)
    expect(getMessageById('in-3')(limited)._tag).toBe('Some')
  })

  it('keeps the conversation metadata and counts', () => {
    expect(getConversationMetadata('default')(limited)).toEqual(
      O.some({
        conversation_id: 'default',
        created_at: '2024-03-15T10:01:00.000Z',
        last_message_at: '2024-03-15T10:05:00.000Z',
        message_count: 5,
        participant_roles: ['user', 'assistant'],
      }),
    )
    expect(limited.updateCount).toBe(5)
  })

  it('drops a late message older than everything held at once', () => {
    const s = applyAll(limited, [chat('late', 'user', 'late', 0)])
    expect(texts(s)).toEqual(['m3', 'm4', 'm5'])
    expect(getConversationMetadata('default')(s)).toMatchObject(O.some({ message_count: 6, created_at: '2024-03-15T10:00:00.000Z' }))
    expect(validateState(s)).toEqual(E.right(s))
  })

  it('a limit of zero keeps no message but counts them', () => {
    const s = applyAll(emptyState({ maxHistorySize: 0 }), [chat('a', 'user', 'a', 1)])
    expect(texts(s)).toEqual([])
    expect(getConversationMetadata('default')(s)).toMatchObject(O.some({ message_count: 1 }))
  })

  it('a message id freed by pruning can be used again', () => {
    expect(E.isRight(applyInput(chat('in-1', 'user', 'again', 9))(limited))).toBe(true)
  })
})

describe('multi-conversation isolation', () => {
  const s = applyAll(emptyState({ maxHistorySize: 2 }), [
    chat('a1', 'user', 'a1', 1, { conversation_id: 'alice' }),
    chat('b1', 'user', 'b1', 2, { conversation_id: 'bob' }),
    chat('a2', 'assistant', 'a2', 3, { conversation_id: 'alice' }),
    chat('a3', 'user', 'a3', 4, { conversation_id: 'alice' }),
    chat('d1', 'user', 'd1', 5),
  ])

  it('keeps each conversation its own messages, limit and metadata', () => {
    expect(conversationIds(s)).toEqual(['alice', 'bob', 'default'])
    expect(texts(s, 'alice')).toEqual(['a2', 'a3'])
    expect(texts(s, 'bob')).toEqual(['b1'])
    expect(texts(s, 'default')).toEqual(['d1'])
    expect(getConversationMetadata('alice')(s)).toMatchObject(O.some({ message_count: 3, participant_roles: ['user', 'assistant'] }))
    expect(getConversationMetadata('bob')(s)).toMatchObject(O.some({ message_count: 1, participant_roles: ['user'] }))
  })

  it('a message to one conversation leaves the others as they were (same values)', () => {
    const t = applyAll(s, [chat('a4', 'assistant', 'a4', 6, { conversation_id: 'alice' })])
    expect(getConversation('bob')(t)[0]).toBe(getConversation('bob')(s)[0])
    expect(texts(t, 'alice')).toEqual(['a3', 'a4'])
  })

  it('restrictTo hides the other conversations and their messages', () => {
    const r = restrictTo(['bob'])(s)
    expect(conversationIds(r)).toEqual(['bob'])
    expect(getMessageById('a1')(r)).toEqual(O.none)
    expect(toSnapshot(r).messages.map((m) => m.message_id)).toEqual(['b1'])
    expect(validateState(r)).toEqual(E.right(r))
    expect(restrictTo(['alice', 'bob', 'default', 'zed'])(s)).toBe(s)
  })
})

describe('content as sent', () => {
  it('keeps multimodal content exactly as sent, next to the parts', () => {
    const content = [
      { type: 'text', text: "What's in this image?" },
      { type: 'image', source: 'url', url: 'https://example.com/image.jpg' },
      { type: 'audio', source: 'base64', data: 'AAEC', media_type: 'audio/*' },
    ] as const
    const single = [{ type: 'text', text: 'just text' }] as const
    const s = applyAll(emptyState(), [chat('m', 'user', content, 1), chat('n', 'user', single, 2)])
    const [m, n] = getConversation('default')(s)
    expect(m?.parts).toEqual([
      { type: 'text', text: "What's in this image?" },
      { type: 'image', url: 'https://example.com/image.jpg' },
      { type: 'file', data: new Uint8Array([0, 1, 2]), mediaType: 'audio/*' },
    ])
    const wire = toChatMessages(s)(getConversation('default')(s))
    expect(wire[0]?.content).toEqual(content)
    expect(wire[1]?.content).toEqual(single)
    expect(n !== undefined && textContent(n)).toBe('just text')
  })
})

describe('a message holds its media once', () => {
  const MiB = 1 << 20
  /** Every value reachable from `root` through data properties, each object once; an accessor holds nothing, so it is not followed. */
  const held = (root: unknown): unknown[] => {
    const seen = new Set<object>()
    const out: unknown[] = []
    const visit = (v: unknown): void => {
      out.push(v)
      if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || seen.has(v)) return
      seen.add(v)
      for (const d of Object.values(Object.getOwnPropertyDescriptors(v))) if ('value' in d) visit(d.value)
    }
    visit(root)
    return out
  }
  /** The values of at least 1 MiB (strings and byte arrays) that `root` holds, described. */
  const payloads = (root: unknown): string[] =>
    held(root).flatMap((v) =>
      typeof v === 'string' && v.length >= MiB
        ? [`string of ${v.length}`]
        : ArrayBuffer.isView(v) && v.byteLength >= MiB
        ? [`${v.constructor.name} of ${v.byteLength}`]
        : []
    )

  it('a stored 1 MiB image is held as sent, once, and its bytes are decoded from it when read', () => {
    const bytes = new Uint8Array(MiB)
    for (let i = 0; i < MiB; i++) bytes[i] = (i * 7919) & 0xff
    const data = encodeBase64(bytes)
    const content = [{ type: 'text', text: 'look' }, { type: 'image', source: 'base64', data, media_type: 'image/png' }]
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    expect(E.isRight(store.submit({ role: 'user', content, message_id: 'm' }))).toBe(true)
    const once = [`string of ${data.length}`]
    // the record: the content as sent, and a message with no second copy beside it
    const record = T.get(compareStrings, idKey('m', 'default'), store.state().byId)
    expect(record?.content).toBe(content)
    expect(payloads(record)).toEqual(once)
    // the whole store: the event history shares the content with the record; the log's index of
    // large strings (what later log records reference) refers to the same string, not a copy
    const { blobs, ...rest } = store.simulator()
    expect(payloads(rest)).toEqual(once)
    expect(T.values(blobs)).toEqual([data])
    // a state loaded from a snapshot too
    const loaded = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(store.state()))))
    expect(E.isRight(loaded) && payloads(loaded.right)).toEqual(once)
    // the message's image part still gives the bytes, decoded when read
    const image = pipe(
      getMessageById('m')(store.state()),
      O.chainNullableK((m) => m.parts[1]),
    )
    expect(O.isSome(image) && image.value.type === 'image' && { ...image.value, data: image.value.data && encodeBase64(image.value.data) }).toEqual({
      type: 'image',
      data,
      mediaType: 'image/png',
    })
    expect(toSnapshot(store.state()).messages[0]?.content).toBe(content)
  })
})

describe('applyInputs', () => {
  it('stops at the first refusal and returns it', () => {
    const r = applyInputs([chat('a', 'user', 'a', 1), chat('a', 'user', 'dup', 2), chat('c', 'user', 'c', 3)])(emptyState())
    expect(E.isLeft(r) && r.left.kind).toBe('duplicate_message')
  })
})

describe('validateState', () => {
  const good = applyAll(emptyState({ maxHistorySize: 5 }), [chat('a', 'user', 'a', 1), chat('b', 'assistant', 'b', 2, { conversation_id: 'x' })])

  it('passes states built by applyInput, returning them', () => {
    expect(validateState(good)).toEqual(E.right(good))
  })

  it('reports broken limits, counts, metadata and indexes by path', () => {
    const broken: ChatState = { ...good, maxHistorySize: 0, updateCount: 0, lastUpdated: '2000-01-01T00:00:00Z', byId: undefined }
    const r = validateState(broken)
    const ps = E.isLeft(r) ? r.left.map((i) => i.path) : []
    expect(ps).toEqual(
      expect.arrayContaining([
        'conversations["default"].messages',
        'conversations["x"].messages',
        'conversations["default"].messages[0].message_id',
        'byId',
        'update_count',
        'last_updated',
      ]),
    )
  })

  it('reports metadata that does not cover the messages', () => {
    const c = good.conversations!
    const meta = { ...c.v.meta, message_count: 0, participant_roles: [] as const, created_at: '2030-01-01T00:00:00Z' }
    const broken: ChatState = { ...good, conversations: { ...c, v: { ...c.v, meta } } }
    const r = validateState(broken)
    const id = JSON.stringify(c.v.meta.conversation_id)
    expect(E.isLeft(r) ? r.left.map((i) => i.path) : []).toEqual(
      expect.arrayContaining([`conversations[${id}].message_count`, `conversations[${id}].participant_roles`, `conversations[${id}].created_at`]),
    )
  })
})

describe('pipe', () => {
  it('composes', () => {
    const s = pipe(emptyState(), applyInput(chat('a', 'user', 'hello', 1)), E.chain(applyInput(chat('b', 'assistant', 'hi', 2))))
    expect(E.isRight(s) ? texts(s.right) : []).toEqual(['hello', 'hi'])
  })
})
