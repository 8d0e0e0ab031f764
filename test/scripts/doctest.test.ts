/**
 * The doc-example extractor behind `npm run test:examples`: it finds every `@example` of a doc
 * comment, with the source line of its first code line and the name it documents, and tells which
 * examples can only be type-checked.
 */
import { describe, expect, it } from 'vitest'
import { examplesOf, typeOnly } from '../../scripts/doctest.ts'

const source = [
  '/**', //                                   1
  ' * Adds one.', //                          2
  ' *', //                                    3
  ' * @example', //                           4
  " * import { inc } from 'chatfold'", //     5
  ' * inc(1) // 2', //                        6
  ' *', //                                    7
  ' * @example', //                           8
  ' * ```ts', //                              9
  ' * inc(2)', //                             10
  ' * ```', //                                11
  ' * @since 0.1.0', //                       12
  ' */', //                                   13
  'export const inc = (n: number): number => n + 1',
  '/** No example here. */',
  'export const two = 2',
].join('\n')

describe('examplesOf', () => {
  it('finds each example with its first code line and the exported name', () => {
    expect(examplesOf('src/inc.ts', source)).toEqual([
      { file: 'src/inc.ts', line: 5, symbol: 'inc', code: "import { inc } from 'chatfold'\ninc(1) // 2" },
      { file: 'src/inc.ts', line: 10, symbol: 'inc', code: 'inc(2)' },
    ])
  })

  it('names a module comment `module`', () => {
    expect(examplesOf('src/m.ts', '/**\n * A module.\n * @example\n * f()\n *\n * @module\n */\nexport * from "./x.ts"')).toEqual([
      { file: 'src/m.ts', line: 4, symbol: 'module', code: 'f()' },
    ])
  })
})

describe('typeOnly', () => {
  it('is true for examples that declare values or are worker scripts, false for self-contained ones', () => {
    expect(typeOnly("declare const history: import('chatfold').Messages\nforLLM(history)")).toBe(true)
    expect(typeOnly("import { expose } from 'comlink'\nexpose(createEngineService())")).toBe(true)
    expect(typeOnly("import { text } from 'chatfold'\ntext('hi')")).toBe(false)
  })
})
