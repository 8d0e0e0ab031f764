/**
 * A served store's Durable Streams beside its chat routes (the Durable Object and Deno KV forms):
 * requests under `/streams` go to a streams handler opened on first use (an open that fails is a
 * 503, tried again on the next request), the others to the chat handler; each store the chat
 * handler opens has its conversations published as streams. What the served forms run (not an
 * entry's export).
 *
 * @module
 */
import type { ChatStore } from '../store/store.ts'
import type { StreamsGate, StreamsHandler } from './handler.ts'
import { mirrorConversations } from './conversations.ts'
import { refuse } from './_http.ts'

/** Whether a path is under `base` (the streams endpoint). */
export const isUnder = (base: string, pathname: string): boolean => pathname === base || pathname.startsWith(`${base}/`)

/**
 * The streams of a served store: `route` puts them in front of the chat handler, `opened` wraps
 * the chat handler's `open` so that each store it opens is published (the conversations).
 */
export const servedStreams = (open: () => Promise<StreamsHandler>, gate: StreamsGate, base = '/streams') => {
  let current: Promise<StreamsHandler> | undefined
  const streams = (): Promise<StreamsHandler> => {
    const opening = current ?? open()
    current = opening
    opening.catch(() => {
      if (current === opening) current = undefined
    })
    return opening
  }
  const seen = new Map<string, Set<string>>()
  let stop: (() => void) | undefined
  return {
    route: (chat: (request: Request) => Promise<Response>) => async (request: Request): Promise<Response> => {
      if (!isUnder(base, new URL(request.url).pathname)) return chat(request)
      let handler: StreamsHandler
      try {
        handler = await streams()
      } catch (e) {
        await request.body?.cancel().catch(() => undefined)
        return refuse(503, `The streams log cannot be opened: ${e instanceof Error ? e.message : String(e)}`)
      }
      return handler.gated(gate)(request)
    },
    opened: <S extends ChatStore>(openStore: () => Promise<S>) => async (): Promise<S> => {
      const store = await openStore()
      stop?.()
      stop = undefined
      // the chat store serves even when its streams cannot open (their requests are 503s)
      const handler = await streams().catch(() => undefined)
      if (handler !== undefined) stop = mirrorConversations(store, handler, seen)
      return store
    },
  }
}
