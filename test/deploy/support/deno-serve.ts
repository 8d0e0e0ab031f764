// The Deno example with a snapshot every 100 records, so that the tests recover through snapshots,
// the simulator routes on (the store contract moves the clock), and a lease of 1 s, so that a
// restart after a kill waits at most that for the killed process's lease to end.
import { kvChatServer } from '../../../src/deno/mod.ts'

declare const Deno: { env: { get(name: string): string | undefined } }

export default kvChatServer({
  path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3',
  snapshotEvery: 100,
  leaseMs: 1_000,
  token: Deno.env.get('CHATFOLD_TOKEN'),
  simulator: true,
})
