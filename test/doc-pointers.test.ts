/**
 * What the library's messages point a user to exists: a doc path with an anchor
 * (`docs/manual/engine.md#bundlers`) names a file of the repository and one of its headings, and a
 * README section (`README: Bundlers`) is one of the README's headings.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, sourceFiles } from './support/layers.ts'

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

const headings = (file: string): ReadonlyArray<string> => [...readFileSync(file, 'utf8').matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => (m[1] ?? '').trim())

/** The pointers into the docs that the sources' code and comments hold. */
const pointers = (): ReadonlyArray<{ readonly file: string; readonly kind: 'doc' | 'readme'; readonly target: string }> =>
  sourceFiles().flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8')
    return [
      ...[...text.matchAll(/\bdocs\/[\w./-]+\.md#[\w-]+/g)].map((m) => ({ file, kind: 'doc' as const, target: m[0] })),
      ...[...text.matchAll(/README: "?([A-Z][^)"]*)"?\)/g)].map((m) => ({ file, kind: 'readme' as const, target: m[1] ?? '' })),
    ]
  })

describe("the docs the library's messages point to", () => {
  it('exist: each doc path and anchor is a file and one of its headings, each README section one of its headings', () => {
    const all = pointers()
    expect(all.some((p) => p.file === 'src/engine/host.ts')).toBe(true)
    const broken = all.filter(({ kind, target }) => {
      if (kind === 'readme') return !headings(join(ROOT, 'README.md')).includes(target)
      const [path = '', anchor = ''] = target.split('#')
      return !existsSync(join(ROOT, path)) || !headings(join(ROOT, path)).map(slug).includes(anchor)
    })
    expect(broken).toEqual([])
  })
})
