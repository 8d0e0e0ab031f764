/**
 * `chatfold serve`'s library function on Node with the file backend, run as its own process and
 * killed with SIGKILL: the store contract over HTTP.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'
import { type Child, startChild, stopChild, type ServedStore } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'

const script = join(dirname(fileURLToPath(import.meta.url)), 'support', 'serve-store.ts')
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

const open = async (): Promise<ServedStore> => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-serve-'))
  dirs.push(dir)
  // a snapshot every 100 records, so that the kill test recovers through snapshots and rotated logs
  const start = () => startChild(process.execPath, ['--import', 'tsx', script, dir, '100'], /listening on (http:\/\/127\.0\.0\.1:\d+)/)
  let child: Child & { match: RegExpExecArray } = await start()
  return {
    url: () => child.match[1] as string,
    restart: async (how) => {
      await stopChild(child.process, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      child = await start()
    },
    stop: () => stopChild(child.process, 'SIGKILL'),
  }
}

storeContract('Node, file backend', open, { kills: 3 })
