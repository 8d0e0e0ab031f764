/**
 * What a request of the chat handler may reach (every conversation, or some), and the shape of a
 * route: private to the handler's files.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { ChatStore } from './store.ts'
import { type ChatState, restrictTo } from './state.ts'
import type { SimEvent } from './simulator.ts'
import { fail, readJson } from './http-body.ts'

// --- access ---

export type Access = { readonly all: true } | { readonly all: false; readonly ids: ReadonlySet<string> }

export const canSee = (access: Access, conversationId: string): boolean => access.all || access.ids.has(conversationId)

export const visibleState = (access: Access, state: ChatState): ChatState => (access.all ? state : restrictTo([...access.ids])(state))

export const conversationOfEvent = (state: ChatState, e: SimEvent): string => e.input.conversation_id ?? state.defaultConversationId

export const forbidden = (conversationId: string): Response => fail(403, 'forbidden', `Not allowed in conversation ${JSON.stringify(conversationId)}`)

export type Ctx = { readonly store: ChatStore; readonly access: Access; readonly request: Request; readonly url: URL; readonly limit: number }
/** A route: its method, what it runs, and whether it changes the store (refused to a read-only token). */
export type Route = { readonly method: 'GET' | 'POST'; readonly run: (ctx: Ctx) => Promise<Response>; readonly writes?: true }

/** A route's run that reads the JSON body first (a bad body is answered before `run`). */
export const withBody = (run: (ctx: Ctx, body: unknown) => Response) => async (ctx: Ctx): Promise<Response> => {
  const body = await readJson(ctx.request, ctx.limit)
  return E.isLeft(body) ? body.left : run(ctx, body.right)
}
