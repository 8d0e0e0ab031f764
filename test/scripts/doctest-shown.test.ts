import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { CHECK_IMPORT, checkShown, commentStart, showsValue } from '../../scripts/doctest-shown.ts'

const root = join(import.meta.dirname, '..', '..')
const at = (line: number): string => `x.ts:${line + 1}`

describe('shown results in doc examples (scripts/doctest-shown.ts)', () => {
  it('reads a trailing comment that begins with a value as a shown result, and prose as prose', () => {
    for (
      const v of [
        '1',
        '-1',
        '0.5',
        "'a'",
        '"a"',
        '`a`',
        '[]',
        '{ a: 1 }',
        'true',
        'false',
        'null',
        'undefined',
        'NaN',
        'none',
        'some(1)',
        'left([])',
        'right(state)',
      ]
    ) expect([v, showsValue(v)]).toEqual([v, true])
    for (const v of ['the summary', 'e.g. openai()', 'nonetheless', 'something(1)', 'rightly so', '<input>']) expect([v, showsValue(v)]).toEqual([v, false])
  })

  it('finds a trailing comment outside strings, and none on a line that is only a comment', () => {
    expect(commentStart("f('http://a') // 1")).toBe(14)
    expect(commentStart("f('http://a')")).toBe(-1)
    expect(commentStart('  // 1')).toBe(-1)
    expect(commentStart('f(`a//b`, "//") // 2')).toBe(16)
  })

  it('turns each shown result into a check, line for line: an expression, a declaration, a logged value, a guarded expression, an expression over lines', () => {
    const code = [
      'const xs = [1, 2]',
      'xs.length // 2',
      'const n = xs.length // 2',
      'console.log(xs) // [1, 2]',
      'if (xs.length > 0) xs[0] // 1',
      'Math.max(',
      '  3,',
      '  4,',
      ') // 4',
      'xs.length; // 2',
      'const words = 1 // the rest is prose',
    ]
    const shown = checkShown(code.join('\n'), at)
    expect(shown.count).toBe(6)
    expect(shown.problems).toEqual([])
    const lines = shown.code.split('\n')
    expect(lines).toHaveLength(code.length)
    expect(lines[0]).toBe('const xs = [1, 2]')
    expect(lines[1]).toMatch(/^__shows\(xs\.length, \(\(none, some, left, right\) => \(2\)\)\(__none, __some, __left, __right\), "x\.ts:2"\)$/)
    expect(lines[2]).toMatch(/^const n = xs\.length; __shows\(n, \(\(none, some, left, right\) => \(2\)\)/)
    expect(lines[3]).toMatch(/^__shows\(xs, \(\(none, some, left, right\) => \(\[1, 2\]\)\)/)
    expect(lines[4]).toMatch(/^__shows\(Boolean\(xs\.length > 0\), true, "x\.ts:5 \(its condition\)"\); if \(xs\.length > 0\) __shows\(xs\[0\], /)
    expect(lines[5]).toBe('__shows(Math.max(')
    expect(lines[8]).toMatch(/^\), \(\(none, some, left, right\) => \(4\)\)/)
    expect(lines[9]).toMatch(/^__shows\(xs\.length, /)
    expect(lines[10]).toBe('const words = 1 // the rest is prose')
  })

  it('names a result it cannot check: an elided value, or prose that begins with a value', () => {
    const shown = checkShown(['f() // [{ id: 1, … }]', 'g() // [...]', 'h() // 0 when the log was whole', 'k() // 1'].join('\n'), at)
    expect(shown.count).toBe(4)
    expect(shown.problems.map((p) => p.line)).toEqual([0, 1, 2])
    expect(shown.problems[2]?.message).toMatch(/`0 when the log was whole`/)
  })
})

describe('the example runner (scripts/doctest-run.ts) with shown results', () => {
  let dir: string | undefined
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    dir = undefined
  })

  // each case starts a Node process that compiles its examples with tsx: seconds on a busy machine,
  // so these cases have a budget of their own rather than vitest's 5 s

  /** Writes examples as scripts/doctest.ts does, runs them, and returns the runner's exit status and output. */
  const runExamples = (examples: ReadonlyArray<readonly string[]>): { status: number | null; output: string } => {
    // inside the project, so that the examples' imports (fp-ts) resolve as they do for the doc examples
    dir = mkdtempSync(join(root, '.doctest-test-'))
    const list = examples.map((code, n) => {
      const shown = checkShown(code.join('\n'), (line) => `example-${n}.ts:${line + 1}`)
      const file = join(dir!, `example-${n}.ts`)
      writeFileSync(file, `${shown.code}\n${CHECK_IMPORT(join(root, 'scripts', 'doctest-assert.ts'))}\nexport {}\n`)
      return { file, at: `example-${n}.ts:1` }
    })
    writeFileSync(join(dir, 'run.json'), JSON.stringify(list))
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'doctest-run.ts'), join(dir, 'run.json'), dir], {
      cwd: root,
      encoding: 'utf8',
    })
    return { status: run.status, output: `${run.stdout}${run.stderr}` }
  }

  it('fails on an example whose shown result is false, naming its line, the value shown and the result; passes the true ones', () => {
    const { status, output } = runExamples([
      ['import * as O from "fp-ts/Option"', '[1, 2, 3].filter((n) => n > 1).length // 2', 'O.fromNullable(null) // none', 'const xs = [1, 2]', 'xs // [1, 2]'],
      ['const roles = ["system", "user"]', 'roles.filter((r) => r === "assistant").length // 1'],
    ])
    expect(status).toBe(1)
    expect(output).toContain('example-1.ts:2: the example shows 1, but the result is 0')
    expect(output).not.toContain('example-0.ts')
  }, 60_000)

  it('passes when every shown result is true, Options and Eithers as fp-ts builds them', () => {
    const { status, output } = runExamples([[
      'import * as E from "fp-ts/Either"',
      'import * as O from "fp-ts/Option"',
      'E.right({ a: [1] }) // right({ a: [1] })',
      'E.left("no") // left("no")',
      'O.some(3) // some(3)',
      'const o = { n: undefined }',
      'o // { n: undefined }',
    ]])
    expect([status, output]).toEqual([0, ''])
  }, 60_000)
})
