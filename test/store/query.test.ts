import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { textContent } from '../../src/message/accessors.ts'
import { emptyState } from '../../src/store/state.ts'
import { type ChatQuery, decodeQuery, getConversation, getMessageById, getRecentMessages, query } from '../../src/store/query.ts'
import { applyAll, chat } from './helpers.ts'

// two conversations, interleaved in time; minute n holds message n
const state = applyAll(emptyState(), [
  chat('01', 'user', "What's the weather today?", 1),
  chat('02', 'assistant', 'Sunny and 72°F.', 2),
  chat('03', 'user', 'Any RAIN tomorrow?', 3, { conversation_id: 'ops' }),
  chat('04', 'assistant', 'No rain expected.', 4, { conversation_id: 'ops' }),
  chat('05', 'user', [{ type: 'text', text: 'Is this rain?' }, { type: 'image', source: 'url', url: 'https://e.x/sky.jpg' }], 5),
  chat('06', 'assistant', 'Looks like clouds, not rain.', 6),
  chat('07', 'user', 'thanks', 7, { conversation_id: 'ops' }),
])

const ids = (q: ChatQuery) => query(q)(state).map((m) => m.id)
const at = (minute: number) => new Date(Date.UTC(2024, 2, 15, 10, minute)).toISOString()

describe('query', () => {
  it('without parameters returns every message chronologically, across conversations', () => {
    expect(ids({})).toEqual(['01', '02', '03', '04', '05', '06', '07'])
  })
  it('by conversation', () => {
    expect(ids({ conversation_id: 'ops' })).toEqual(['03', '04', '07'])
    expect(ids({ conversation_id: 'default' })).toEqual(['01', '02', '05', '06'])
    expect(ids({ conversation_id: 'nobody' })).toEqual([])
  })
  it('by role', () => {
    expect(ids({ role: 'user' })).toEqual(['01', '03', '05', '07'])
    expect(ids({ role: 'assistant' })).toEqual(['02', '04', '06'])
  })
  it('by time range, both bounds inclusive', () => {
    expect(ids({ since: at(3) })).toEqual(['03', '04', '05', '06', '07'])
    expect(ids({ until: at(3) })).toEqual(['01', '02', '03'])
    expect(ids({ since: at(2), until: at(4) })).toEqual(['02', '03', '04'])
    expect(ids({ since: at(5), until: at(4) })).toEqual([])
    expect(ids({ since: '2024-03-15T11:02:30+01:00', until: '2024-03-15T10:05:00.000000001Z' })).toEqual(['03', '04', '05'])
  })
  it('by text, case-insensitive, over the text of multimodal content too', () => {
    expect(ids({ search: 'rain' })).toEqual(['03', '04', '05', '06'])
    expect(ids({ search: 'RAIN?' })).toEqual(['05'])
    expect(ids({ search: '' })).toEqual(ids({}))
    expect(ids({ search: 'sky.jpg' })).toEqual([])
  })
  it('limit keeps the most recent matches, still chronological', () => {
    expect(ids({ limit: 2 })).toEqual(['06', '07'])
    expect(ids({ limit: 0 })).toEqual([])
    expect(ids({ limit: 100 })).toEqual(ids({}))
  })
  it('combines every parameter', () => {
    expect(ids({ conversation_id: 'default', role: 'user', search: 'rain', since: at(1), until: at(6), limit: 5 })).toEqual(['05'])
    expect(ids({ conversation_id: 'ops', role: 'assistant', search: 'rain' })).toEqual(['04'])
    expect(ids({ role: 'assistant', search: 'rain', limit: 1 })).toEqual(['06'])
    expect(ids({ role: 'user', since: at(2), limit: 2 })).toEqual(['05', '07'])
    expect(ids({ conversation_id: 'default', until: at(5), limit: 2 })).toEqual(['02', '05'])
    expect(ids({ search: 'no', since: at(4), until: at(6) })).toEqual(['04', '06'])
  })
})

describe('decodeQuery', () => {
  it('accepts the seed example', () => {
    expect(decodeQuery({ conversation_id: 'default', limit: 10 })).toEqual(E.right({ conversation_id: 'default', limit: 10 }))
  })
  it('reports every bad field, unknown ones included', () => {
    const r = decodeQuery({ role: 'bot', limit: -1, since: 'yesterday', conversationId: 'x', search: 3 })
    expect(E.isLeft(r) ? r.left.map((i) => i.path).sort() : []).toEqual(['conversationId', 'limit', 'role', 'search', 'since'])
  })
  it('rejects what is not an object', () => {
    expect(E.isLeft(decodeQuery([]))).toBe(true)
    expect(E.isLeft(decodeQuery(null))).toBe(true)
  })
})

describe('lookups', () => {
  it('getConversation returns a conversation chronologically', () => {
    expect(getConversation('ops')(state).map(textContent)).toEqual(['Any RAIN tomorrow?', 'No rain expected.', 'thanks'])
  })
  it('getRecentMessages returns the last N of one conversation or of all', () => {
    expect(getRecentMessages(2)(state).map((m) => m.id)).toEqual(['06', '07'])
    expect(getRecentMessages(2, 'default')(state).map((m) => m.id)).toEqual(['05', '06'])
    expect(getRecentMessages(Infinity, 'ops')(state).map((m) => m.id)).toEqual(['03', '04', '07'])
    expect(getRecentMessages(-4)(state)).toEqual([])
    expect(getRecentMessages(Number.NaN)(state)).toEqual([])
    expect(getRecentMessages(1.9)(state).map((m) => m.id)).toEqual(['07'])
  })
  it('getMessageById finds a message, or none', () => {
    expect(O.map((m: { id: string; conversationId?: string }) => m.conversationId)(getMessageById('04')(state))).toEqual(O.some('ops'))
    expect(getMessageById('nope')(state)).toEqual(O.none)
  })
})
