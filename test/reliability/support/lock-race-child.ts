/**
 * One contender of the LOCK race (`lock-race.test.ts`): on each `go` message it takes the lock of
 * the directory named, tells whether it got it, holds it until `end`, checks it still holds it,
 * releases it and tells.
 */
import { lockStore, type StoreLock } from '../../../src/node/_store-lock.ts'

let lock: StoreLock | undefined
process.on('message', (m: { readonly type: 'go'; readonly dir: string } | { readonly type: 'end' } | { readonly type: 'exit' }) => {
  if (m.type === 'go') {
    try {
      lock = lockStore(m.dir)
      process.send?.({ type: 'took', took: 'release' in lock })
    } catch (e) {
      lock = undefined
      process.send?.({ type: 'took', took: false, why: e instanceof Error ? e.message : String(e), code: (e as { code?: unknown }).code })
    }
  } else if (m.type === 'end') {
    const held = lock !== undefined && 'release' in lock ? lock : undefined
    const lost = (held as { check?: () => string | undefined } | undefined)?.check?.()
    held?.release()
    lock = undefined
    process.send?.({ type: 'ended', lost })
  } else process.exit(0)
})
process.send?.({ type: 'ready' })
