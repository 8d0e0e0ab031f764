// The file backend under Deno (through its node: modules): opens the store in argv's directory,
// submits the given message, prints what it recovered and the store's message count.
import { openDurableStore } from '../../../src/store/durable.ts'
import { fileStorage } from '../../../src/node/file-storage.ts'

declare const Deno: { args: string[] }
const [dir, content] = Deno.args
const store = await openDurableStore(fileStorage(dir as string))({ snapshotEvery: 2 })
console.log(`recovered ${store.recovery.messages} (snapshot at ${store.recovery.snapshotSeq})`)
store.submit({ role: 'user', content: content as string })
await store.close()
console.log(`holds ${store.state().updateCount}`)
