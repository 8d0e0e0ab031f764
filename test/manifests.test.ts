/**
 * package.json (npm) and deno.json (JSR) describe one package: the same entry points, mapped to
 * the same sources (built `dist/` files for npm, `.ts` sources for Deno), and the same version.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const read = (f: string) => JSON.parse(readFileSync(new URL(`../${f}`, import.meta.url), 'utf8')) as Record<string, unknown>
const npm = read('package.json') as { version: string; exports: Record<string, { types: string; default: string }> }
const deno = read('deno.json') as { version: string; exports: Record<string, string> }

/** deno.json's compiler options: none that Deno's checker cannot take on the dependencies' types. */
const denoOptions = (read('deno.json') as { compilerOptions?: Record<string, unknown> }).compilerOptions ?? {}

describe('package manifests', () => {
  it('carry the same version', () => {
    expect(deno.version).toBe(npm.version)
  })

  it('list the same entry points, each built from the source Deno serves', () => {
    // every entry npm has is on JSR too: a Deno user reads the same guides
    expect(Object.keys(deno.exports).sort()).toEqual(Object.keys(npm.exports).sort())
    for (const [key, source] of Object.entries(deno.exports)) {
      const built = source.replace(/^\.\//, './dist/').replace(/\.ts$/, '.js')
      expect(npm.exports[key]?.default, key).toBe(built)
      expect(npm.exports[key]?.types, key).toBe(built.replace(/\.js$/, '.d.ts'))
    }
  })

  it("leave Deno's libraries as a user has them, and leave out exactOptionalPropertyTypes", () => {
    // a lib of our own (dom beside deno.window) once hid a type error that users under Deno's default
    // libraries met; and under exactOptionalPropertyTypes Deno's checker overflows its stack on the ai
    // package's types (serde_v8 recursion limit), so JSR could not check the AI SDK entries.
    // tsc checks the sources with exactOptionalPropertyTypes (tsconfig.json); scripts/deno-check.ts
    // checks a consumer with Deno's defaults
    expect(denoOptions['lib']).toBeUndefined()
    expect(denoOptions['exactOptionalPropertyTypes']).toBeUndefined()
  })
})
