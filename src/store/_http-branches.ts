/**
 * The chat handler's routes that branch and compact a conversation: `POST /modalities/chat/fork`,
 * `POST /modalities/chat/compact` (compare-and-append: a 2xx only for an overlay committed on the
 * head it names) and `GET /environment/modalities/chat/overlays`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { fail, invalid, json, storeFailure } from './http-body.ts'
import { decodeForkRequest } from './fork.ts'
import { conversationHead, decodeCompactRequest, overlaysOf } from './overlay.ts'
import { ChatIdC } from './input.ts'
import { canSee, forbidden, type Route, withBody } from './_http-access.ts'

/** The routes, by path. */
export const BRANCH_ROUTES: Readonly<Record<string, ReadonlyArray<Route>>> = {
  '/modalities/chat/fork': [
    {
      method: 'POST',
      writes: true,
      run: withBody((ctx, body) => {
        const request = decodeForkRequest(body)
        if (E.isLeft(request)) return invalid(request.left)
        const { conversation_id: from, message_id: at, new_conversation_id: to } = request.right
        if (!canSee(ctx.access, from)) return forbidden(from)
        // a caller limited to some conversations names the fork, one of them: a generated id would be none
        if (!ctx.access.all && (to === undefined || !canSee(ctx.access, to))) return forbidden(to ?? '(generated)')
        if (ctx.store.fork === undefined) return fail(501, 'not_implemented', 'This store does not fork conversations')
        const r = ctx.store.fork(from, at, to)
        return E.isLeft(r) ? storeFailure(r.left) : json(201, { conversation: r.right })
      }),
    },
  ],
  '/modalities/chat/compact': [
    {
      method: 'POST',
      writes: true,
      run: withBody((ctx, body) => {
        const request = decodeCompactRequest(body)
        if (E.isLeft(request)) return invalid(request.left)
        const { conversation_id: id, from, head, summary, through, metadata } = request.right
        if (!canSee(ctx.access, id)) return forbidden(id)
        if (ctx.store.compact === undefined) return fail(501, 'not_implemented', 'This store does not commit compactions')
        // compare-and-append: a head the conversation has moved on from is a 409 naming its head now, and nothing is kept
        const r = ctx.store.compact(id, from, head, summary, { ...(through === undefined ? {} : { through }), ...(metadata === undefined ? {} : { metadata }) })
        return E.isLeft(r) ? storeFailure(r.left) : json(201, { overlay: r.right })
      }),
    },
  ],
  '/environment/modalities/chat/overlays': [
    {
      method: 'GET',
      run: async (ctx) => {
        const id = ctx.url.searchParams.get('conversation_id')
        if (id === null || !ChatIdC.is(id)) return invalid([{ path: 'conversation_id', expected: 'a conversation id', actual: id }])
        if (!canSee(ctx.access, id)) return forbidden(id)
        const sim = ctx.store.simulator()
        return json(200, { conversation_id: id, head: conversationHead(id)(sim), overlays: overlaysOf(id)(sim) })
      },
    },
  ],
}
