// The Cloudflare example with a snapshot every 100 records, so that the tests recover through snapshots.
import { chatStoreObject, chatStoreWorker } from '../../../src/cloudflare/mod.ts'

export const ChatStoreObject = chatStoreObject({ snapshotEvery: 100 })
export default chatStoreWorker({ binding: 'CHAT_STORE' })
