/**
 * `chatfold serve`'s library function on Node with the file backend, run as its own process and
 * killed with SIGKILL: the store contract over HTTP, then what the backend leaves on disk (a
 * snapshot, the log segments after it, the killed process's lock), which a store opened on the
 * directory in this process recovers to what was served.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { createChatHandler } from '../../src/store/http.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { openDurableStore } from '../../src/store/durable.ts'
import { call, type Child, servedEnv, type ServedStore, startChild, stopChild } from '../support/served-store.ts'
import { storeContract } from '../support/store-contract.ts'

const script = join(dirname(fileURLToPath(import.meta.url)), 'support', 'serve-store.ts')
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

const SNAPSHOT_EVERY = 100

/** A store served from a fresh directory, and the directory. */
const serveFresh = async (): Promise<ServedStore & { readonly dir: string }> => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-serve-'))
  dirs.push(dir)
  // a snapshot every 100 records, so that the kill test recovers through snapshots and rotated logs
  const start = () =>
    startChild(process.execPath, ['--import', 'tsx', script, dir, String(SNAPSHOT_EVERY)], /listening on (http:\/\/127\.0\.0\.1:\d+)/, { env: servedEnv() })
  let child: Child & { match: RegExpExecArray } = await start()
  return {
    dir,
    url: () => child.match[1] as string,
    restart: async (how) => {
      await stopChild(child.process, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      child = await start()
    },
    stop: () => stopChild(child.process, 'SIGKILL'),
  }
}

storeContract('Node, file backend', serveFresh, { kills: 3 })

describe('the file backend on disk', { timeout: 60_000 }, () => {
  /** The numbers in the names that match `re` (its group 1). */
  const numbered = (names: ReadonlyArray<string>, re: RegExp): number[] =>
    names.flatMap((name) => {
      const m = re.exec(name)
      return m === null ? [] : [Number(m[1])]
    })

  it('leaves one snapshot and only the log after it, which a store opened on the directory after a SIGKILL recovers to what was served', async () => {
    const served = await serveFresh()
    const n = SNAPSHOT_EVERY + 50
    for (let i = 0; i < n; i++) {
      expect(
        (await call(served.url(), 'POST', '/modalities/chat/submit', { role: i % 2 === 0 ? 'user' : 'assistant', content: `m${i}`, message_id: `f-${i}` }))
          .status,
      ).toBe(201)
    }
    const before = (await call(served.url(), 'GET', '/environment/modalities/chat')).body
    expect(before.messages).toHaveLength(n)
    await served.stop() // SIGKILL: no close, the lock stays behind

    const names = await readdir(served.dir)
    const snapshots = numbered(names, /^snapshot-(\d{12})\.json$/)
    const segments = numbered(names, /^log-(\d{12})\.jsonl$/)
    expect(snapshots).toHaveLength(1) // older snapshots are removed
    const at = snapshots[0] as number
    expect(at).toBeGreaterThanOrEqual(SNAPSHOT_EVERY)
    expect(segments.length).toBeGreaterThan(0)
    expect(segments.every((first) => first > at)).toBe(true) // segments the snapshot covers are removed
    expect(names).toContain('LOCK')
    expect(names.filter((f) => f.endsWith('.tmp'))).toEqual([])

    // the killed process's lock is taken over; recovery starts at the snapshot and replays only the tail
    const store = await openDurableStore(fileStorage(served.dir))()
    try {
      expect(store.recovery).toMatchObject({ snapshotSeq: at, replayed: store.recovery.seq - at, messages: n, repaired: [] })
      expect(store.recovery.replayed).toBeLessThan(n)
      const after = await createChatHandler(store)(new Request('http://127.0.0.1/environment/modalities/chat'))
      expect(await after.json()).toEqual(before)
    } finally {
      await store.close()
    }
  })
})
