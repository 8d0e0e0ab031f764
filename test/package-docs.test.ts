/**
 * The README's links work from the npm page too: the package has no repository URL to resolve them
 * against, so every page and image they reach (and those the reached pages link to) ships in the
 * package, as the README says.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..')

/** The relative targets of a Markdown page's links and images, as paths from the package root. */
const linksOf = (page: string): string[] =>
  [...readFileSync(join(root, page), 'utf8').matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target))
    .map((target) => normalize(join(dirname(page), target)))

describe('the packed package', () => {
  // npm pack lists what it would ship (a second or more: it starts npm)
  it('ships every page and image the README links to, and those they link to', () => {
    const [info] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    ) as Array<{ files: Array<{ path: string }> }>
    const shipped = new Set(info?.files.map((f) => f.path))
    const seen = new Set<string>()
    const missing: string[] = []
    const visit = (page: string): void => {
      for (const target of linksOf(page)) {
        if (seen.has(target)) continue
        seen.add(target)
        if (!shipped.has(target)) missing.push(`${page} → ${target}`)
        else if (target.endsWith('.md')) visit(target)
      }
    }
    visit('README.md')
    expect(seen.size).toBeGreaterThan(20)
    expect(missing).toEqual([])
  }, 60_000)
})
