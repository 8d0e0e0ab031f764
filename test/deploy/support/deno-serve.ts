// The Deno example with a snapshot every 100 records, so that the tests recover through snapshots,
// and the simulator routes on (the store contract moves the clock).
import { kvChatServer } from '../../../src/deno/mod.ts'

declare const Deno: { env: { get(name: string): string | undefined } }

export default kvChatServer({ path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3', snapshotEvery: 100, token: Deno.env.get('CHATFOLD_TOKEN'), simulator: true })
