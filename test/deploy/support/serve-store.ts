/** Serves the file-backed store in a directory on a free port (argv: dir [snapshotEvery]); prints where it listens. */
import { serveChatStore } from '../../../src/node/serve.ts'

const [dir, every] = process.argv.slice(2)
if (dir === undefined) throw new Error('usage: serve-store.ts DIR [SNAPSHOT_EVERY]')
// the token of the environment (CHATFOLD_TOKEN), and the simulator routes on (the store contract moves the clock)
await serveChatStore({
  dataDir: dir,
  port: 0,
  handler: { token: process.env['CHATFOLD_TOKEN'], simulator: true },
  ...(every === undefined ? {} : { snapshotEvery: Number(every) }),
})
