// The Cloudflare example with a snapshot every 100 records, so that the tests recover through
// snapshots, and the simulator routes on (the store contract moves the clock); the token comes
// from the CHATFOLD_TOKEN binding, as in the example; a lease of 1 s, so that a restart after a
// kill waits at most that for the killed process's lease to end.
import { chatStoreObject, chatStoreWorker } from '../../../src/cloudflare/mod.ts'

export const ChatStoreObject = chatStoreObject({ snapshotEvery: 100, simulator: true, leaseMs: 1_000 })
export default chatStoreWorker({ binding: 'CHAT_STORE' })
