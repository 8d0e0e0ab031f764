/**
 * Reading back what `contextMiddleware` did to a call: the `ContextRecord` it left in the answer's
 * `providerMetadata.chatfold`, decoded (provider metadata is the SDK's untyped JSON, which any
 * middleware or provider may write).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { ContextRecord } from './_context-record.ts'
import type { CallCostLine } from '../cost/call-cost.ts'
import { RecordReceiptC } from './_receipt-record.ts'

const ChargeC = t.type({ input: t.number, output: t.number, cacheRead: t.number, cacheWrite: t.number, total: t.number, longContext: t.boolean })

const CallCostFailureC = t.union([
  t.type({ kind: t.keyof({ 'no-usage': null, 'no-model': null }) }),
  t.type({ kind: t.literal('unpriced'), model: t.string }),
  t.type({ kind: t.literal('missing-rate'), model: t.string, rate: t.keyof({ cacheRead: null, cacheWrite5m: null, cacheWrite1h: null }) }),
])

/** The codec of a call's cost line. */
const CallCostLineC: t.Type<CallCostLine, unknown, unknown> = t.union([
  t.type({ model: t.string, usd: t.number, charge: ChargeC }),
  t.type({ model: t.union([t.string, t.null]), usd: t.null, unpriced: CallCostFailureC }),
])

const CompactionC = t.intersection([
  t.type({
    from: t.number,
    to: t.number,
    messages: t.number,
    tokensBefore: t.number,
    tokensAfter: t.number,
    summaryTokens: t.number,
    summary: t.string,
  }),
  t.partial({ calls: t.array(CallCostLineC) }),
])

/** The codec of a record; typed as `ContextRecord` so that a field added to the one is missed in the other at compile time. */
const ContextRecordC: t.Type<ContextRecord, unknown, unknown> = t.intersection([
  t.type({
    limit: t.number,
    tokensBefore: t.number,
    tokensAfter: t.number,
    prunedResults: t.number,
    prunedArgs: t.number,
    summarisedUpTo: t.number,
    compaction: t.union([CompactionC, t.null]),
  }),
  t.partial({ notes: t.array(t.string), receipt: RecordReceiptC, cost: CallCostLineC }),
])

/**
 * The `ContextRecord` `contextMiddleware` left on a call's answer (`generateText`'s result, a
 * step of it, or the awaited `providerMetadata` of `streamText`): `some` when the middleware
 * changed the call, `none` when the request went through untouched (or what is under
 * `providerMetadata.chatfold` is not a record).
 *
 * @example
 * import { contextRecordOf } from 'chatfold/ai-sdk'
 * const answer = { providerMetadata: { chatfold: { limit: 900, tokensBefore: 1_400, tokensAfter: 850, prunedResults: 3, prunedArgs: 0, summarisedUpTo: 0, compaction: null } } }
 * const r = contextRecordOf(answer)
 * r._tag === 'Some' && r.value.tokensAfter // 850
 * contextRecordOf({ providerMetadata: undefined })._tag // 'None'
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export const contextRecordOf = (answer: { readonly providerMetadata?: Readonly<Record<string, unknown>> | undefined }): O.Option<ContextRecord> =>
  O.fromEither(E.mapLeft(() => undefined)(ContextRecordC.decode(answer.providerMetadata?.['chatfold'])))
