// The Cloudflare Worker and Durable Object of the store, served without a token (loopback host
// names only), for the Durable Streams conformance suite, which sends none: the CHATFOLD_TOKEN
// binding the tests' workerd config fills is not passed on.
import { chatStoreObject, chatStoreWorker, type DurableObjectStateLike } from '../../../src/cloudflare/mod.ts'

const Base = chatStoreObject({ requireToken: false })
export class ChatStoreObject extends Base {
  constructor(ctx: DurableObjectStateLike, _env?: unknown) {
    super(ctx, {})
  }
}
const worker = chatStoreWorker({ binding: 'CHAT_STORE', requireToken: false })
export default {
  fetch: (request: Request, env: Readonly<Record<string, unknown>>) => worker.fetch(request, { CHAT_STORE: env['CHAT_STORE'] }),
}
