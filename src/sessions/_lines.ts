/**
 * A JSONL session file read line by line: each line through a reader, a bad line failing the read
 * or skipped and listed.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure, DecodeIssue } from '../message/failure.ts'
import { jsonlLines } from '../internal/lines.ts'
import type { SessionOptions, SkippedLine } from './session-read.ts'

/** One parsed line of a JSONL file. */
export type Line = { readonly n: number; readonly value: unknown }

/**
 * Reads the records of a JSONL text: each line through `take`, which answers the failures of a line
 * it cannot read (empty when it could). A line that is not JSON, or that `take` fails, ends the read
 * with its failure prefixed `line N` (`badLines: 'fail'`), or is listed in `skipped` (`'skip'`).
 */
export const eachLine = (
  text: string,
  options: SessionOptions,
  take: (line: Line) => DecodeFailure,
): E.Either<DecodeFailure, ReadonlyArray<SkippedLine>> => {
  const skipped: SkippedLine[] = []
  for (const { text: raw, n } of jsonlLines(text)) {
    let value: unknown
    let failure: DecodeFailure
    try {
      value = JSON.parse(raw)
      failure = take({ n, value })
    } catch (e) {
      failure = [{ path: '', expected: 'a JSON record', actual: e instanceof Error ? `not JSON: ${e.message}` : String(e) }]
    }
    if (failure.length === 0) continue
    if (options.badLines !== 'skip')
      return E.left(failure.map((i) => ({ ...i, path: `line ${n}${i.path === '' || i.path.startsWith('[') ? '' : '.'}${i.path}` })))
    const first = failure[0] as DecodeIssue
    skipped.push({
      line: n,
      reason: `${first.path === '' ? '' : `${first.path}: `}expected ${first.expected}${
        typeof first.actual === 'string' && first.actual.startsWith('not JSON') ? ` (${first.actual})` : ''
      }`,
    })
  }
  return E.right(skipped)
}
