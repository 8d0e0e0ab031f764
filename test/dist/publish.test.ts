/**
 * The package as the ecosystem's own linters see it (run after `npm run build`):
 * - `publint --strict`: package.json's `exports`, `files` and fields agree with what `npm pack` ships;
 * - `@arethetypeswrong/cli`: every entry point's types resolve, and resolve to the file that runs,
 *   under TypeScript's `node16` (from ESM) and `bundler` resolution. chatfold is ESM only (the
 *   engine finds its worker through `import.meta.url`, which CommonJS has no equivalent of), so the
 *   `esm-only` profile is used: `node10` (no `exports` support at all) and `node16` from CommonJS
 *   (where TypeScript before 5.8 only allows `await import()`) are reported, not failed; the
 *   README's install section says so, and package.test.ts checks that CommonJS `require()` really
 *   loads the package on Node 20.19+.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const bin = (name: string) => join(root, 'node_modules', '.bin', name)
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }

beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'src', 'mod.js'))) throw new Error('dist/ is missing: run `npm run build` first')
})

describe('publishing to npm', () => {
  it('passes publint --strict', () => {
    const r = spawnSync(bin('publint'), ['--strict'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
    expect(`${r.stdout}${r.stderr}`).toContain('All good!')
    expect(r.status).toBe(0)
  })

  it('resolves every entry point under node16 (ESM) and bundler, types next to the code that runs', () => {
    const r = spawnSync(bin('attw'), ['--pack', '.', '--profile', 'esm-only', '--format', 'json'], { cwd: root, encoding: 'utf8', timeout: 120_000 })
    const report = JSON.parse(r.stdout) as {
      analysis: {
        entrypoints: Record<string, { resolutions: Record<string, { resolution?: { fileName: string } }> }>
        problems: ReadonlyArray<{ kind: string; entrypoint: string; resolutionKind: string }>
      }
    }
    const { entrypoints, problems } = report.analysis
    // every subpath of package.json is analysed (none missed by discovery)
    expect(Object.keys(entrypoints).sort()).toEqual(Object.keys(pkg.exports).sort())
    for (const [entry, { resolutions }] of Object.entries(entrypoints)) {
      for (const kind of ['node16-esm', 'bundler']) {
        expect(resolutions[kind]?.resolution?.fileName, `${entry} under ${kind}`).toMatch(/\.d\.ts$/)
      }
    }
    // only the two documented kinds of report, and only for the two resolutions an ESM-only package cannot serve
    const unexpected = problems.filter((p) =>
      !(p.resolutionKind === 'node10' && p.kind === 'NoResolution') && !(p.resolutionKind === 'node16-cjs' && p.kind === 'CJSResolvesToESM')
    )
    expect(unexpected).toEqual([])
    expect(r.status).toBe(0)
  })
})
