/** Serves the file-backed store in a directory on a free port (argv: dir [snapshotEvery]); prints where it listens. */
import { serveChatStore } from '../../../src/node/serve.ts'

const [dir, every] = process.argv.slice(2)
if (dir === undefined) throw new Error('usage: serve-store.ts DIR [SNAPSHOT_EVERY]')
await serveChatStore({ dataDir: dir, port: 0, ...(every === undefined ? {} : { snapshotEvery: Number(every) }) })
