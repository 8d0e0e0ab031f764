/**
 * The writer every `to…Request` is made with: the history written by the wire API's `to…`, then
 * the envelope around it, where a field of another provider (on the request or on a tool) is left
 * out with one `setting_dropped` note in one wording. Not exported from the package.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { ProviderFields } from '../message/part-model.ts'
import type { ModelRequest } from './request.ts'
import type { AdapterNote, AdapterResult, Converted } from './types.ts'

type Obj = Readonly<Record<string, unknown>>

/**
 * The fields `owner` keeps under `providerFields`; each field of another provider is noted as a
 * `setting_dropped` at `{at}{provider}.{field}`, because `{provider}` alone knows it.
 */
export const ownFields = (owner: string, fields: ProviderFields | undefined, notes: AdapterNote[], at = ''): Obj => {
  for (const [provider, value] of Object.entries(fields ?? {})) {
    if (provider === owner) continue
    for (const field of Object.keys(value))
      notes.push({ kind: 'setting_dropped', setting: `${at}${provider}.${field}`, reason: `a field only ${provider} knows` })
  }
  return fields?.[owner] ?? {}
}

/** What an envelope is written from: the history as the wire API's `to…` wrote it, the request's own fields, and the notes to add to. */
export type EnvelopeInput<H> = { readonly history: H; readonly own: Obj; readonly notes: AdapterNote[] }

/**
 * A whole request: the history's conversion (its error, if it failed), then `envelope` around it,
 * given the request fields of `owner` (another provider's are noted), its notes after the
 * history's, and the history's repair report kept.
 */
export const writeRequest = <H, B>(
  owner: string,
  request: ModelRequest,
  history: AdapterResult<H>,
  envelope: (input: EnvelopeInput<H>) => B,
): AdapterResult<B> =>
  E.map(({ request: written, report }: Converted<H>): Converted<B> => {
    const notes = [...report.notes]
    const own = ownFields(owner, request.providerFields, notes)
    return { request: envelope({ history: written, own, notes }), report: { ...report, notes } }
  })(history)
