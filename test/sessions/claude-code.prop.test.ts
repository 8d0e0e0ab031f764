import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { readClaudeCode } from '../../src/sessions/claude-code.ts'

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-code')
// deno-lint-ignore no-explicit-any -- the sessions' JSON lines, read field by field
type Rec = Record<string, any>
const load = (name: string): ReadonlyArray<Rec> =>
  Object.freeze(
    readFileSync(join(DIR, name), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Rec),
  )
const FILES = [
  '1e8d4c2f-6a3b-4f1e-9d7c-2b5a8e0f4c61.jsonl',
  '4b7e2a90-1c5d-4e8f-a3b6-9d0c1e2f3a47.jsonl',
  '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl',
  '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl',
]

const isResultRecord = (r: Rec): boolean =>
  r['type'] === 'user' && Array.isArray(r['message']?.content) && r['message'].content.every((b: Rec) => b['type'] === 'tool_result')
const callIndex = (rs: ReadonlyArray<Rec>, r: Rec): number => {
  const id = r['message'].content[0].tool_use_id as string
  return rs.findIndex((x) => x['type'] === 'assistant' && x['message'].content.some((b: Rec) => b['type'] === 'tool_use' && b['id'] === id))
}

/** The records with one tool-result record moved to a later place, anywhere after its call. */
const moved = (rs: ReadonlyArray<Rec>, which: number, to: number): ReadonlyArray<Rec> => {
  const results = rs.map((r, i) => [r, i] as const).filter(([r]) => isResultRecord(r))
  const [r, from] = results[which % results.length] as readonly [Rec, number]
  const rest = rs.filter((_, i) => i !== from)
  const after = callIndex(rest, r) + 1
  const at = after + (to % (rest.length - after + 1))
  return [...rest.slice(0, at), r, ...rest.slice(at)]
}

describe('Claude Code reader laws', () => {
  it.each(FILES)('where a result record stands after its call does not change the history read (%s)', (name) => {
    const rs = load(name)
    const read = (x: ReadonlyArray<Rec>) => {
      const r = readClaudeCode({ branches: 'all' })(x)
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      return { messages: r.right.messages, archive: r.right.archive }
    }
    const once = read(rs)
    fc.assert(
      fc.property(fc.nat(), fc.nat(), (which, to) => {
        expect(read(moved(rs, which, to))).toEqual(once)
      }),
      { numRuns: 40 },
    )
  })

  it.each(FILES)('reading never changes the records it is given (%s)', (name) => {
    const rs = load(name)
    const copy = structuredClone(rs)
    readClaudeCode({ branches: 'all' })(rs)
    expect(rs).toEqual(copy)
  })
})
