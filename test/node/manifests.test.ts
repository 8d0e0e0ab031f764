/**
 * package.json (npm) and deno.json (JSR) describe one package: the same entry points, mapped to
 * the same sources (built `dist/` files for npm, `.ts` sources for Deno), and the same version.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const read = (f: string) => JSON.parse(readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8')) as Record<string, unknown>
const npm = read('package.json') as { version: string; exports: Record<string, { types: string; default: string }> }
const deno = read('deno.json') as { version: string; exports: Record<string, string> }

/**
 * Entry points published to npm but not to JSR, and why. `deno publish` type-checks every entry
 * point, and Deno's checker overflows its stack on the `ai` package's types (serde_v8 recursion
 * limit), so the AI SDK summariser cannot be published there; Deno users import it from npm.
 */
const NPM_ONLY: Readonly<Record<string, string>> = {
  './summarize/ai-sdk': "Deno's type checker overflows on the ai package's types",
  './ai-sdk': "Deno's type checker overflows on the ai package's types",
}

describe('package manifests', () => {
  it('carry the same version', () => {
    expect(deno.version).toBe(npm.version)
  })

  it('list the same entry points (but the documented npm-only ones), each built from the source Deno serves', () => {
    expect(Object.keys(deno.exports).sort()).toEqual(Object.keys(npm.exports).filter((k) => !(k in NPM_ONLY)).sort())
    for (const [key, source] of Object.entries(deno.exports)) {
      const built = source.replace(/^\.\//, './dist/').replace(/\.ts$/, '.js')
      expect(npm.exports[key]?.default, key).toBe(built)
      expect(npm.exports[key]?.types, key).toBe(built.replace(/\.js$/, '.d.ts'))
    }
  })
})
