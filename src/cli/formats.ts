/**
 * The formats `convert --to` writes, as one table (add a format by adding an entry): the provider
 * request bodies, AI SDK model and UI messages, and chatfold JSONL/JSON. The formats chatfold
 * reads, and their detection, are the core's (`src/sessions/input-formats.ts`), which the history
 * explorer reads too.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { Messages } from '../message/message.ts'
import { toJSON, toJSONL } from '../history/codec.ts'
// each adapter from its own module: the adapters' index would load every one of them
import type { AdapterFailure, AdapterOptions, AdapterReport } from '../adapters/types.ts'
import type { ModelRequest } from '../adapters/request.ts'
import { wireApiRows } from '../adapters/wire-apis.ts'
import { toUIMessages } from '../adapters/ai-sdk/ui-messages.ts'
import { encodeBase64 } from '../internal/base64.ts'

/**
 * What writing gave: the text to write and, for a provider format, the request itself (what a
 * request check reads) and the adapter's report.
 */
export type Written = { readonly text: string; readonly request?: unknown; readonly report?: AdapterReport }

/**
 * An output format of `convert --to`: how it writes a history, and, for a provider's request body,
 * how it writes a whole request (`writeRequest`: the envelope mapped, and what it cannot carry noted).
 */
export type OutputFormat = {
  readonly name: string
  readonly description: string
  readonly write: (options: AdapterOptions) => (ms: Messages) => E.Either<AdapterFailure, Written>
  readonly writeRequest?: (options: AdapterOptions) => (request: ModelRequest) => E.Either<AdapterFailure, Written>
}

/** Bytes in a request body (AI SDK image and file parts) as base64, which every reader of it accepts. */
const bytesAsBase64 = (_: string, v: unknown): unknown => (v instanceof Uint8Array ? encodeBase64(v) : v)

const body = (r: E.Either<AdapterFailure, { readonly request: unknown; readonly report: AdapterReport }>): E.Either<AdapterFailure, Written> =>
  E.map((c: { readonly request: unknown; readonly report: AdapterReport }) => ({
    text: `${JSON.stringify(c.request, bytesAsBase64, 2)}\n`,
    request: c.request,
    report: c.report,
  }))(r)

/** Every output format. */
export const OUTPUT_FORMATS: ReadonlyArray<OutputFormat> = [
  ...wireApiRows.map((row): OutputFormat => {
    const request = row.request
    const write = (o: AdapterOptions) => (ms: Messages) => body(row.to(o)(ms))
    return request === undefined
      ? { name: row.api, description: row.cli.output, write }
      : { name: row.api, description: row.cli.output, write, writeRequest: (o) => (r) => body(request.to(o)(r)) }
  }),
  { name: 'chatfold-jsonl', description: 'chatfold JSONL', write: () => (ms) => E.right({ text: toJSONL(ms) }) },
  { name: 'chatfold-json', description: 'chatfold JSON', write: () => (ms) => E.right({ text: `${toJSON(ms, 2)}\n` }) },
  { name: 'ui-messages', description: 'AI SDK UI messages ({ messages })', write: (o) => (ms) => body(toUIMessages(o)(ms)) },
]

/** The output format of a name. */
export const outputFormat = (name: string): OutputFormat | undefined => OUTPUT_FORMATS.find((f) => f.name === name)
