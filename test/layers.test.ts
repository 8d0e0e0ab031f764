import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { layerOf, LAYERS, privateViolations, ROOT, RUNTIME_ENTRIES, sourceFiles, type Tier, tierOf, TIERS, violations } from './support/layers.ts'

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
    const order = [
      'src/message/message.ts',
      'src/tokens/count.ts',
      'src/tokenizer/load.ts',
      'src/history/views.ts',
      'src/compaction/plan.ts',
      'src/builder/builder.ts',
      'src/store/store.ts',
      'src/engine/client.ts',
      'src/sessions/codex.ts',
      'src/mod.ts',
      'src/node/mod.ts',
      'src/cli/main.ts',
    ]
    const ranks = order.map(rank)
    expect(ranks.every((r) => r >= 0)).toBe(true)
    // strictly increasing: each folder sits above the one before it
    expect(ranks.filter((r, i) => i > 0 && r <= (ranks[i - 1] ?? -1))).toEqual([])
  })

  describe('private files', () => {
    const tree = (files: Record<string, string>) => new Map(Object.entries(files))

    it("fails on an import of another folder's private file", () => {
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

  describe('src/README.md lists the folders by tier', () => {
    const SECTIONS: Readonly<Record<string, ReadonlyArray<Tier>>> = {
      'Concepts': ['concept'],
      'Runtimes': ['runtime'],
      'Frameworks': ['framework'],
      'The rest': ['command', 'internal', 'root'],
    }
    // each table row: the folder as the listing names it (relative to src/), its section, its subpaths
    const rows = (() => {
      const out: Array<{ folder: string; section: string; subpaths: string[] }> = []
      let section = ''
      for (const line of readFileSync(join(ROOT, 'src/README.md'), 'utf8').split('\n')) {
        const heading = /^## (.+)$/.exec(line)
        if (heading?.[1] !== undefined) section = heading[1]
        const row = /^\| `([^`]+)` +\| ([^|]+) \|/.exec(line)
        if (row?.[1] === undefined || row[2] === undefined) continue
        const folder = row[1].startsWith('../') ? row[1].slice(3) : `src/${row[1]}`
        out.push({ folder, section, subpaths: [...row[2].matchAll(/`(chatfold[^`]*)`/g)].map((m) => m[1] ?? '') })
      }
      return out
    })()
    const exportsMap = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8')).exports as Record<string, string>

    it('gives every folder of the layer map a tier, and every folder of src/ a place in the map', () => {
      expect(LAYERS.map(([prefix]) => prefix).filter((p) => tierOf(p) === undefined)).toEqual([])
      const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `src/${d.name}/`)
      expect(folders.filter((f) => TIERS[f] === undefined)).toEqual([])
    })

    it('names every folder of the map once, under the heading of its tier', () => {
      expect(rows.map((r) => r.folder).sort()).toEqual(Object.keys(TIERS).sort())
      const misplaced = rows.filter((r) => !(SECTIONS[r.section] ?? []).includes(TIERS[r.folder] ?? 'root'))
      expect(misplaced).toEqual([])
    })

    it('names the subpaths each folder serves, as deno.json exports them', () => {
      const served = (folder: string) =>
        Object.entries(exportsMap)
          .filter(([, file]) => (folder.endsWith('/') ? file.startsWith(`./${folder}`) : file === `./${folder}`))
          .map(([key]) => (key === '.' ? 'chatfold' : `chatfold/${key.slice(2)}`))
          .sort()
      expect(rows.map((r) => ({ folder: r.folder, subpaths: [...r.subpaths].sort() }))).toEqual(
        rows.map((r) => ({ folder: r.folder, subpaths: served(r.folder) })),
      )
    })
  })
})
