/**
 * The usage a provider reported, as the anchor of the next decision (private: not exported from
 * the package). When the provider counted more input tokens for the prompt last sent than the
 * estimate did, the next prompt is read at the same ratio: a history that only grew reads as the
 * reported count plus the estimate of what was added, raised by that ratio too (the text the
 * estimate read under may be what is being added). When the provider counted less, the estimate
 * stands: a decision never reads under the fresh estimate.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { isObject } from '../internal/object.ts'

/** A prompt sent: its messages and the estimate of the request's fixed part (tools). */
export type Sent = { readonly messages: Messages; readonly fixed: number }

/** The provider's count of a prompt sent, with the estimate of the same prompt. */
export type Anchor = { readonly estimated: number; readonly reported: number }

/** The anchor of a prompt sent and the input tokens the provider reported for it. */
export const anchorOf = (sent: Sent, count: (m: Message) => number, reported: number): Anchor => {
  let estimated = sent.fixed
  for (const m of sent.messages) estimated += count(m)
  return { estimated, reported }
}

/** The ratio of the reported count to the estimate of the last prompt, at least 1 (1 without an anchor). */
export const underRatioOf = (a: Anchor | undefined): number => (a === undefined || a.estimated <= 0 ? 1 : Math.max(1, a.reported / a.estimated))

/** An estimate read at the anchor's ratio: never less than the estimate. */
export const anchored = (a: Anchor | undefined, estimate: number): number => Math.ceil(estimate * underRatioOf(a))

const finite = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined)

/**
 * The input tokens of a usage the AI SDK reports: a language model's (`{ inputTokens: { total,
 * noCache, cacheRead, cacheWrite } }`, specification v3) or a step's (`{ inputTokens: number }`);
 * `undefined` when it has no count.
 */
export const inputTokensOf = (usage: unknown): number | undefined => {
  if (!isObject(usage)) return undefined
  const input = usage['inputTokens']
  if (!isObject(input)) return finite(input)
  const total = finite(input['total'])
  if (total !== undefined) return total
  const parts = [input['noCache'], input['cacheRead'], input['cacheWrite']].map(finite)
  return parts.every((p) => p === undefined) ? undefined : parts.reduce<number>((a, p) => a + (p ?? 0), 0)
}
