/**
 * The chat store's side of `uiMessageStore`: listing a conversation's messages and adding one, to
 * a `ChatStore` in this process or to a store served over HTTP.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type Part } from '../message/part-model.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { fromChatContent } from '../store/content.ts'
import type { ChatStore } from '../store/store.ts'
import { getConversation } from '../store/query.ts'
import { formatStoreFailure } from '../store/simulator.ts'
import { overlaysOf } from '../store/overlay.ts'
import { ChatMessageC } from '../store/snapshot.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'
import { UIMessageStoreError } from './errors.ts'

/** A store served over HTTP: its URL, bearer token, the conversation, and the `fetch` to ask it with. */
export type HttpTarget = {
  readonly url: string
  readonly token?: string
  readonly conversationId: string
  readonly fetch?: (request: Request) => Promise<Response>
}

/** A message the store holds: its id, and the chatfold messages it stands for. */
export type Held = { readonly id: string; readonly role: 'user' | 'assistant'; readonly parts: ReadonlyArray<Part>; readonly metadata: unknown }

/** A store message to add. */
export type Row = {
  readonly message_id: string
  readonly role: 'user' | 'assistant'
  readonly content: string
  readonly metadata: Readonly<Record<string, unknown>>
}

/** A compaction to commit as the store's overlay: its range (`from`…`through`), the head it was computed from, its text, and what is kept beside it. */
export type Compaction = {
  readonly from: string
  readonly head: string
  readonly through: string
  readonly summary: string
  readonly metadata: Readonly<Record<string, unknown>>
}

/** A committed compaction as read back: its range, head and metadata. */
export type HeldCompaction = { readonly from: string; readonly head: string; readonly metadata?: unknown }

/**
 * What the persistence needs of a store: its messages of the conversation, in order, adding one
 * ('held': the id is taken), the compactions committed on it, and committing one (compare-and-append:
 * `stale` names the head now; `unsupported` for a store that does not commit compactions).
 */
export type Backend = {
  readonly list: () => Promise<ReadonlyArray<Held>>
  readonly add: (row: Row) => Promise<'added' | 'held'>
  readonly compactions: () => Promise<ReadonlyArray<HeldCompaction>>
  readonly compact: (c: Compaction) => Promise<'committed' | 'unsupported' | { readonly stale: string | null }>
}

export const inProcess = (store: ChatStore, conversationId: string): Backend => ({
  list: async () =>
    getConversation(conversationId)(store.state()).map((m) => ({
      id: m.id,
      role: m.role === 'assistant' ? 'assistant' : 'user',
      parts: m.parts,
      metadata: m.metadata,
    })),
  add: async (row) => {
    const r = store.submit({ ...row, conversation_id: conversationId })
    if (E.isLeft(r)) {
      if (r.left.kind === 'duplicate_message') return 'held'
      throw new UIMessageStoreError(
        'refused',
        `Cannot save message ${JSON.stringify(row.message_id)}: ${
          r.left.kind === 'invalid_input' ? formatDecodeFailure(r.left.failure) : formatStoreFailure(r.left)
        }`,
      )
    }
    await store.flush?.()
    return 'added'
  },
  compactions: async () => overlaysOf(conversationId)(store.simulator()),
  compact: async (c) => {
    if (store.compact === undefined) return 'unsupported'
    const r = store.compact(conversationId, c.from, c.head, c.summary, { through: c.through, metadata: c.metadata })
    if (E.isLeft(r)) {
      if (r.left.kind === 'stale_head') return { stale: r.left.head }
      throw new UIMessageStoreError('refused', `Cannot save the compaction up to ${JSON.stringify(c.through)}: ${formatStoreFailure(r.left)}`)
    }
    await store.flush?.()
    return 'committed'
  },
})

/** The error of an answer other than the one expected: its status and the store's message. */
const answerError = async (what: string, res: Response): Promise<UIMessageStoreError> => {
  const text = await res.text().catch(() => '')
  let message = text.slice(0, 500)
  // not JSON: the text as it came
  const body = parseJsonText(text)
  const error = E.isRight(body) && isObject(body.right) ? body.right['error'] : undefined
  if (isObject(error) && typeof error['message'] === 'string') message = error['message']
  return new UIMessageStoreError('refused', `${what}: the store answered ${res.status}${message === '' ? '' : ` (${message})`}`, { status: res.status })
}

/** The `code` of an error answer, if it has one. */
const errorCode = async (res: Response): Promise<string | undefined> => {
  const body = parseJsonText(await res.text().catch(() => ''))
  const error = E.isRight(body) && isObject(body.right) ? body.right['error'] : undefined
  return isObject(error) && typeof error['code'] === 'string' ? error['code'] : undefined
}

export const overHttp = (o: HttpTarget): Backend => {
  const base = o.url.replace(/\/+$/, '')
  const send = o.fetch ?? ((request: Request) => fetch(request))
  const post = (path: string, body: unknown): Promise<Response> =>
    send(
      new Request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.token === undefined ? {} : { authorization: `Bearer ${o.token}` }) },
        body: JSON.stringify(body),
      }),
    )
  return {
    list: async () => {
      const res = await post('/environment/modalities/chat/query', { conversation_id: o.conversationId })
      if (res.status !== 200) throw await answerError(`Cannot load conversation ${JSON.stringify(o.conversationId)}`, res)
      const body: unknown = await res.json()
      const rows = isObject(body) && Array.isArray(body['messages']) ? body['messages'] : undefined
      if (rows === undefined)
        throw new UIMessageStoreError('unreadable', `Cannot load conversation ${JSON.stringify(o.conversationId)}: the store's answer has no messages list`)
      return rows.map((u: unknown, i) => {
        const d = ChatMessageC.decode(u)
        if (E.isLeft(d))
          throw new UIMessageStoreError('unreadable', `Cannot load conversation ${JSON.stringify(o.conversationId)}: messages[${i}] is not a stored message`)
        return { id: d.right.message_id, role: d.right.role, parts: fromChatContent(d.right.content), metadata: d.right.metadata }
      })
    },
    add: async (row) => {
      const res = await post('/modalities/chat/submit', { ...row, conversation_id: o.conversationId })
      if (res.status === 201) return 'added'
      if (res.status === 409) return 'held'
      throw await answerError(`Cannot save message ${JSON.stringify(row.message_id)}`, res)
    },
    compactions: async () => {
      const res = await send(
        new Request(`${base}/environment/modalities/chat/overlays?conversation_id=${encodeURIComponent(o.conversationId)}`, {
          headers: o.token === undefined ? {} : { authorization: `Bearer ${o.token}` },
        }),
      )
      // a store served before compactions were committed: none
      if (res.status === 404 && (await errorCode(res.clone())) === 'not_found') return []
      if (res.status !== 200) throw await answerError(`Cannot load the compactions of conversation ${JSON.stringify(o.conversationId)}`, res)
      const body: unknown = await res.json()
      const listed: ReadonlyArray<unknown> = isObject(body) && Array.isArray(body['overlays']) ? body['overlays'] : []
      return listed.flatMap((
        u,
      ) => (isObject(u) && typeof u['from'] === 'string' && typeof u['head'] === 'string'
        ? [{ from: u['from'], head: u['head'], metadata: u['metadata'] }]
        : [])
      )
    },
    compact: async (c) => {
      const res = await post('/modalities/chat/compact', { conversation_id: o.conversationId, ...c })
      if (res.status === 201) return 'committed'
      const code = res.status === 409 || res.status === 404 || res.status === 501 ? await errorCode(res.clone()) : undefined
      if (code === 'not_found' || code === 'not_implemented') return 'unsupported'
      if (code === 'stale_head') {
        const body: unknown = await res.json()
        const head = isObject(body) && isObject(body['error']) ? body['error']['head'] : undefined
        return { stale: typeof head === 'string' ? head : null }
      }
      throw await answerError(`Cannot save the compaction up to ${JSON.stringify(c.through)}`, res)
    },
  }
}
