import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LAYERS, layerOf, ROOT, RUNTIME_ENTRIES, sourceFiles, violations } from './support/layers.ts'

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

  it('the map ranks the seed order role < part < message < chat', () => {
    const rank = (f: string) => layerOf(f) ?? -1
    expect(rank('src/role.ts')).toBeLessThan(rank('src/part.ts'))
    expect(rank('src/part.ts')).toBeLessThan(rank('src/message.ts'))
    expect(rank('src/message.ts')).toBeLessThan(rank('src/chat.ts'))
    expect(rank('src/tokens.ts')).toBeLessThan(rank('src/compaction.ts'))
    expect(rank('src/compaction.ts')).toBeLessThan(rank('src/engine/client.ts'))
  })
})
