import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromCodexRollout, fromGeminiCliChat, type SessionOptions, type SessionRead } from '../../src/sessions/mod.ts'
import type { DecodeFailure } from '../../src/message/failure.ts'
import type { Message } from '../../src/message/message.ts'

const CODEX = readFileSync(new URL('../fixtures/codex/rollout-2026-03-14T09-12-04-019a7c2e-5d41-7a90-8c3e-2f6b1d0e9a47.jsonl', import.meta.url), 'utf8')
const GEMINI = readFileSync(new URL('../fixtures/gemini-cli/session-2026-05-11T08-00-9a8b7c6d.jsonl', import.meta.url), 'utf8')

/** A message without what depends on line numbers (the ids a reader makes from them). */
const shape = (m: Message): unknown => {
  const { id: _, metadata, ...rest } = m
  const { compaction: __, ...meta } = metadata ?? {}
  return { ...rest, metadata: meta }
}
const BAD = fc.constantFrom('{"oops', '42', '[]', 'not json', '{"type":7}', '{"type":"response_item"}')

const READERS: ReadonlyArray<readonly [string, string, (o: SessionOptions) => (t: string) => E.Either<DecodeFailure, SessionRead>]> = [
  ['a Codex rollout', CODEX, fromCodexRollout],
  ['a Gemini CLI recording', GEMINI, fromGeminiCliChat],
]

describe.each(READERS)('bad lines in %s', (_, text, reader) => {
  const lines = text.trimEnd().split('\n')
  const clean = reader({})(text)

  it('skipping them gives the history of the file without them, and lists exactly them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(lines.length), BAD), { minLength: 1, maxLength: 4 }), (inserts) => {
        const out = [...lines]
        // insert from the last position to the first, so that each lands where it was drawn for
        for (const [at, bad] of [...inserts].sort((a, b) => b[0] - a[0])) out.splice(at, 0, bad)
        const badLines = out.flatMap((l, i) => (lines.includes(l) ? [] : [i + 1]))
        const strict = reader({})(out.join('\n'))
        expect(E.isLeft(strict) && strict.left[0]?.path.startsWith(`line ${badLines[0]}`)).toBe(true)
        const r = reader({ badLines: 'skip' })(out.join('\n'))
        if (E.isLeft(r) || E.isLeft(clean)) throw new Error('a skipping read failed')
        expect(r.right.skipped.map((s) => s.line)).toEqual(badLines)
        expect(r.right.messages.map(shape)).toEqual(clean.right.messages.map(shape))
        expect(r.right.archive.map(shape)).toEqual(clean.right.archive.map(shape))
      }),
      { numRuns: 60 },
    )
  })
})
