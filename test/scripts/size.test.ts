import { describe, expect, it } from 'vitest'
import { bundle, firstUse, staticClosure, tableOf, tablesIn } from '../../scripts/size.ts'
import { TABLE_FREE_ENTRIES } from '../support/layers.ts'

/** The chunks loading an encoding brings (`firstUse`), each import found in the bundle. */
const loaded = (b: Awaited<ReturnType<typeof bundle>>, name: 'o200k_base' | 'cl100k_base'): Set<string> => {
  const { chunks, missing } = firstUse(b, name)
  expect(missing).toEqual([])
  return chunks
}

describe('bundle size', () => {
  it('a bundle of each table-free entry holds no rank table, nor any of gpt-tokenizer, with or without splitting', async () => {
    expect(TABLE_FREE_ENTRIES.length).toBeGreaterThan(5)
    for (const entry of TABLE_FREE_ENTRIES)
      for (const splitting of [false, true]) {
        const b = await bundle({ entry, splitting })
        const inputs = [...b.chunks.values()].flatMap((c) => c.inputs)
        expect(inputs).toContain(entry) // the bundle is real
        expect(inputs.filter((i) => i.includes('gpt-tokenizer'))).toEqual([])
        expect([...b.chunks.keys()]).toEqual([b.main]) // nothing to load later either
        expect(b.chunks.get(b.main)?.bytes).toBeLessThan(400_000)
      }
  }, 60_000)

  it('an app on the concept entries emits no table where the same app on the main entry emits both as chunks', async () => {
    const app = (...from: string[]) =>
      `import { countMessages, smartHeuristic } from '${from[0]}'\nimport { textMessage } from '${from[1]}'\nimport { forLLM } from '${
        from[2]
      }'\nexport const n = countMessages(smartHeuristic)(forLLM([textMessage('user', 'Hi')]))\n`
    const lite = await bundle({ code: app('./src/tokens/mod.ts', './src/message/mod.ts', './src/history/mod.ts'), splitting: true })
    const core = await bundle({ code: app('./src/mod.ts', './src/mod.ts', './src/mod.ts'), splitting: true })
    expect(tablesIn(lite, lite.chunks.keys())).toEqual(new Set())
    // the loader is unused, yet a bundler emits the chunks its dynamic imports name
    expect(tablesIn(core, core.chunks.keys())).toEqual(new Set(['o200k_base', 'cl100k_base']))
    expect(tablesIn(core, staticClosure(core, core.main))).toEqual(new Set())
  }, 60_000)

  it('the core bundled with splitting keeps both rank tables out of what loads up front, each in chunks of its own', async () => {
    const b = await bundle({ entry: 'src/mod.ts', splitting: true })
    const upFront = staticClosure(b, b.main)
    expect(tablesIn(b, upFront)).toEqual(new Set())
    const o200k = loaded(b, 'o200k_base')
    const cl100k = loaded(b, 'cl100k_base')
    expect(tablesIn(b, o200k)).toEqual(new Set(['o200k_base']))
    expect(tablesIn(b, cl100k)).toEqual(new Set(['cl100k_base']))
    // no chunk holds a table together with anything of chatfold's
    for (const c of b.chunks.values())
      if (c.inputs.some((i) => tableOf(i) !== undefined)) expect(c.inputs.filter((i) => i.startsWith('src/'))).toEqual([])
  }, 60_000)

  it('the worker bundled with splitting loads no rank table until an encoding is asked for', async () => {
    const b = await bundle({ entry: 'workers/engine.worker.ts', splitting: true })
    expect(tablesIn(b, staticClosure(b, b.main))).toEqual(new Set())
    expect(tablesIn(b, loaded(b, 'o200k_base'))).toEqual(new Set(['o200k_base']))
  }, 60_000)
})
