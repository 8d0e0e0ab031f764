/**
 * Random interleavings of appends, forks, compactions, session clears and kills on the Durable
 * Object store, inside workerd: a Durable Object under `workerd serve` (SQLite storage on disk)
 * runs them on its own `ctx.storage` (test/deploy/support/workerd-interleavings.ts): nothing
 * acknowledged lost or repeated, nothing cleared resurrected, no overlay read on the wrong branch.
 * The property's assertions run in workerd, with vitest's matchers from `@vitest/expect`
 * (test/shim/vitest-workerd.ts); the seed is chosen here and named on failure.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { afterAll, describe, expect, it } from 'vitest'
import type { ChatState } from '../../src/store/core.ts'
import { getConversation } from '../../src/store/query.ts'
import { EVERY_CASE } from '../support/interleavings.ts'
import { ROOT, serveWorkerd } from './support/workerd.ts'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

describe('the Durable Object store (workerd) under random interleavings', { timeout: 120_000 }, () => {
  it('loses nothing acknowledged, resurrects nothing cleared, and reads each overlay on its own branch', async () => {
    // the Worker bundled with the property's assertions (vitest's `expect` from `@vitest/expect`: vitest itself needs Node)
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-interleavings-'))
    dirs.push(dir)
    const entry = join(dir, 'entry.js')
    await build({
      entryPoints: [join(ROOT, 'test', 'deploy', 'support', 'workerd-interleavings.ts')],
      outfile: entry,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      target: 'es2022',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'import', 'default'],
      alias: { vitest: join(ROOT, 'test', 'shim', 'vitest-workerd.ts') },
      logLevel: 'error',
    })
    const w = await serveWorkerd(entry, { durable: true })
    dirs.push(w.dir)
    try {
      const seed = Math.floor(Math.random() * 2 ** 31)
      const r = await fetch(`${w.origin()}/run?seed=${seed}&runs=20`, { method: 'POST' })
      const body = (await r.json()) as { ok: boolean; error?: string; stats?: Record<string, number>; state?: ChatState }
      expect(body.error, `seed ${seed}`).toBeUndefined()
      expect(body.ok).toBe(true)
      // the runs reached every case: each kind of fault and each way a compaction ends
      expect(Object.keys(body.stats ?? {}).sort()).toEqual(EVERY_CASE)
      // workerd killed with the last run's process holding the store: the object's memory is gone, its SQLite kept
      const state = body.state as ChatState
      expect(getConversation('c0')(state).map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm4', 'm5'])
      await w.restart('kill')
      const after = (await (await fetch(`${w.origin()}/state`)).json()) as { state: ChatState }
      expect(after.state).toEqual(state)
    } finally {
      await w.stop()
    }
  })
})
