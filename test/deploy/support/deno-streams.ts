// The Deno form of the store served without a token (loopback host names only), for the Durable
// Streams conformance suite, which sends none.
import { kvChatServer } from '../../../src/deno/mod.ts'

declare const Deno: { env: { get(name: string): string | undefined } }

export default kvChatServer({ path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3', requireToken: false })
