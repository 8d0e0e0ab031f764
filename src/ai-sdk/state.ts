/**
 * Where the context kept by `contextMiddleware` and `contextPrepareStep` is remembered between
 * calls: a conversation's compaction boundary (the summary that replaces its head), by conversation
 * key. In memory it lasts as long as the middleware; in a state store it lasts as long as the
 * conversation, so that a middleware made per request (a serverless route) neither summarises again
 * nor sends a different prefix.
 *
 * @module
 */
import type { ChatStore } from '../store/store.ts'
import { isObject } from '../internal/object.ts'
import { digest } from '../internal/digest.ts'
import { type Backend, inProcess, overHttp } from './_store-backend.ts'

/**
 * A store of JSON objects by conversation key: what `ContextOptions.state` remembers a
 * conversation's compaction in. `get` answers what the last `set` of the key stored (a JSON value
 * read back: the keeper checks it), or `undefined` when there is none.
 *
 * @example
 * import type { ContextStateStore } from 'chatfold/ai-sdk'
 * declare const kv: { get(key: string): Promise<string | null>; put(key: string, value: string): Promise<void> } // e.g. a KV namespace
 * const state: ContextStateStore = {
 *   get: async (key) => { const text = await kv.get(`context:${key}`); return text === null ? undefined : JSON.parse(text) },
 *   set: async (key, value) => kv.put(`context:${key}`, JSON.stringify(value)),
 * }
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type ContextStateStore = {
  readonly get: (key: string) => Promise<unknown>
  readonly set: (key: string, value: Readonly<Record<string, unknown>>) => Promise<void>
}

/**
 * A state store in memory: what a middleware keeps anyway, shared by every middleware given it
 * (each value kept as JSON text, so that what comes back is what a durable store would give).
 *
 * @example
 * import { contextMiddleware, memoryContextState } from 'chatfold/ai-sdk'
 * const state = memoryContextState()
 * const perRequest = () => contextMiddleware({ contextWindow: 200_000, state })
 * await state.set('k', { a: 1 })
 * await state.get('k') // { a: 1 }
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export const memoryContextState = (): ContextStateStore => {
  const kept = new Map<string, string>()
  return {
    get: async (key) => {
      const text = kept.get(key)
      return text === undefined ? undefined : JSON.parse(text)
    },
    set: async (key, value) => void kept.set(key, JSON.stringify(value)),
  }
}

/** The metadata key of a state record in the store. */
const STATE_KEY = 'chatfold_context_state'

/**
 * Options of {@link chatStoreContextState}: the chat store, in this process (`{ store }`) or over
 * HTTP (`{ url, token, fetch }`), and the prefix of the conversations that hold the state (default
 * `context-state-`).
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type ChatStoreContextStateOptions =
  & ({ readonly store: ChatStore } | { readonly url: string; readonly token?: string; readonly fetch?: (request: Request) => Promise<Response> })
  & {
    readonly prefix?: string
  }

/**
 * A state store kept in a chat store, where the conversations are (`createChatStore`,
 * `openDurableStore`, or a store served over HTTP): each key's state is a conversation of its own
 * (`context-state-` and a digest of the key), each `set` a message appended to it whose metadata
 * holds the key and the value; `get` reads the newest. The store only appends, and drops a
 * conversation's oldest messages past its history limit, so old states go by themselves. Rejects
 * when the store refuses a message or cannot be read.
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * import { chatStoreContextState, contextMiddleware } from 'chatfold/ai-sdk'
 * const state = chatStoreContextState({ store: createChatStore() })
 * const middleware = contextMiddleware({ contextWindow: 200_000, state })
 * await state.set('chat-42', { a: 1 })
 * await state.get('chat-42') // { a: 1 }
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export const chatStoreContextState = (options: ChatStoreContextStateOptions): ContextStateStore => {
  const prefix = options.prefix ?? 'context-state-'
  const backendOf = (key: string): { readonly id: string; readonly backend: Backend } => {
    const id = `${prefix}${digest(key)}`
    if ('store' in options) return { id, backend: inProcess(options.store, id) }
    return {
      id,
      backend: overHttp({
        url: options.url,
        conversationId: id,
        ...(options.token === undefined ? {} : { token: options.token }),
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      }),
    }
  }
  /** The newest state record of `key` held, and the number of the next. */
  const newest = async (backend: Backend, key: string): Promise<{ readonly value: unknown; readonly next: number }> => {
    let value: unknown
    let next = 0
    for (const h of await backend.list()) {
      const r = isObject(h.metadata) ? h.metadata[STATE_KEY] : undefined
      if (!isObject(r) || r['key'] !== key || typeof r['n'] !== 'number' || r['n'] < next) continue
      value = r['value']
      next = r['n'] + 1
    }
    return { value, next }
  }
  return {
    get: async (key) => (await newest(backendOf(key).backend, key)).value,
    set: async (key, value) => {
      const { id, backend } = backendOf(key)
      let { next } = await newest(backend, key)
      // an id taken already is a concurrent write (or a state the store dropped): the next number
      for (let tries = 0; tries < 8; tries++, next++) {
        const added = await backend.add({
          message_id: `${id}-${next}`,
          role: 'assistant',
          content: 'chatfold context state',
          metadata: { [STATE_KEY]: { key, n: next, value } },
        })
        if (added === 'added') return
      }
      throw new Error(`Cannot save the context state of ${JSON.stringify(key)}: the store holds every id tried`)
    },
  }
}
