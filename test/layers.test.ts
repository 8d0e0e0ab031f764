import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LAYERS, layerOf, privateViolations, ROOT, RUNTIME_ENTRIES, sourceFiles, violations } from './support/layers.ts'

describe('layers and core purity', () => {
  it('every source file has a layer', () => {
    const files = sourceFiles()
    expect(files.length).toBeGreaterThan(5)
    for (const f of files) expect({ f, layer: layerOf(f) }).toEqual({ f, layer: expect.any(Number) })
  })

  it('names only files and folders that exist', () => {
    const missing = [...LAYERS.map(([prefix]) => prefix), ...RUNTIME_ENTRIES].filter((p) => !existsSync(join(ROOT, p)))
    expect(missing).toEqual([])
  })

  it('imports go one way, and the core uses Web-standard APIs only', () => {
    expect(violations()).toEqual([])
  })

  // The concepts are folders now (role, part and message share src/message/), so the order is the
  // folders' order: message < tokens < history < compaction < builder < store < engine.
  it('the map ranks the folders in the order of the concepts', () => {
    const rank = (f: string) => layerOf(f) ?? -1
    const order = ['src/message/message.ts', 'src/tokens/count.ts', 'src/tokenizer/load.ts', 'src/history/views.ts', 'src/compaction/plan.ts', 'src/builder/builder.ts', 'src/store/store.ts', 'src/engine/client.ts', 'src/sessions/codex.ts', 'src/mod.ts', 'src/node/mod.ts', 'src/cli/main.ts']
    const ranks = order.map(rank)
    expect(ranks.every((r) => r >= 0)).toBe(true)
    // strictly increasing: each folder sits above the one before it
    expect(ranks.filter((r, i) => i > 0 && r <= (ranks[i - 1] ?? -1))).toEqual([])
  })

  describe('private files', () => {
    const tree = (files: Record<string, string>) => new Map(Object.entries(files))

    it('fails on an import of another folder\'s private file', () => {
      const found = privateViolations(tree({
        'src/a/_walk.ts': 'export const walk = 1\n',
        'src/b/use.ts': "import { x } from './x.ts'\nimport { walk } from '../a/_walk.ts'\n",
      }))
      expect(found).toEqual([{ file: 'src/b/use.ts', line: 2, message: expect.stringContaining('src/a/_walk.ts') }])
    })

    it('fails on a re-export or a dynamic import of one too', () => {
      const found = privateViolations(tree({
        'src/b/mod.ts': "export { walk } from '../a/_walk.ts'\nconst lazy = () => import('../a/sub/_deep.ts')\n",
      }))
      expect(found.map((v) => v.line)).toEqual([1, 2])
    })

    it('lets a private file be imported from its own folder, and a public file from anywhere', () => {
      const found = privateViolations(tree({
        'src/a/_walk.ts': 'export const walk = 1\n',
        'src/a/prune.ts': "import { walk } from './_walk.ts'\n",
        'src/a/mod.ts': "export * from './_walk.ts'\n",
        'src/b/use.ts': "import { prune } from '../a/prune.ts'\n// import { walk } from '../a/_walk.ts'\n",
      }))
      expect(found).toEqual([])
    })
  })
})
