// The Deno example with a snapshot every 100 records, so that the tests recover through snapshots.
import { kvChatServer } from '../../../src/deno/mod.ts'

declare const Deno: { env: { get(name: string): string | undefined } }

export default kvChatServer({ path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3', snapshotEvery: 100 })
