// The Cloudflare example taking bodies of up to 8 MiB (a message holding a 3 MB screenshot), a
// snapshot every 16 records, and a lease of 1 s (a restart after a kill waits at most that).
import { chatStoreObject, chatStoreWorker } from '../../../src/cloudflare/mod.ts'

export const ChatStoreObject = chatStoreObject({ snapshotEvery: 16, leaseMs: 1_000, maxBodyBytes: 8 * 1024 * 1024 })
export default chatStoreWorker({ binding: 'CHAT_STORE' })
