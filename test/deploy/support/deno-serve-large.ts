// The Deno example taking bodies of up to 8 MiB (a message holding a 3 MB screenshot), a snapshot
// every 16 records, and a lease of 1 s (a restart after a kill waits at most that).
import { kvChatServer } from '../../../src/deno/mod.ts'

declare const Deno: { env: { get(name: string): string | undefined } }

export default kvChatServer({
  path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3',
  snapshotEvery: 16,
  leaseMs: 1_000,
  token: Deno.env.get('CHATFOLD_TOKEN'),
  maxBodyBytes: 8 * 1024 * 1024,
})
