/**
 * A language model's answer as `callCostOf` reads it: the usage a model reports to a middleware
 * (specification v3 and v4: `{ inputTokens: { total, noCache, cacheRead, cacheWrite }, outputTokens:
 * { total, text, reasoning } }`) and the model that answered, in the shape of a `generateText` answer.
 *
 * @module
 */
import { isObject } from '../internal/object.ts'
import type { CallAnswer } from '../cost/call-cost.ts'

const finite = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined)

/** A model's reported usage and id as a `CallAnswer`; a usage that is a step's (numbers) is read as it is. */
export const answerOfModelUsage = (modelId: string | undefined, usage: unknown): CallAnswer => {
  const response = modelId === undefined ? {} : { response: { modelId } }
  if (!isObject(usage)) return response
  const input = usage['inputTokens']
  const output = usage['outputTokens']
  if (!isObject(input) || !isObject(output)) {
    return { ...response, usage: { inputTokens: finite(input), outputTokens: finite(output) } }
  }
  const noCache = finite(input['noCache'])
  const cacheRead = finite(input['cacheRead'])
  const cacheWrite = finite(input['cacheWrite'])
  const parts = [noCache, cacheRead, cacheWrite]
  const total = finite(input['total']) ?? (parts.every((p) => p === undefined) ? undefined : parts.reduce<number>((a, p) => a + (p ?? 0), 0))
  const reasoning = finite(output['reasoning'])
  const text = finite(output['text'])
  const outputTotal = finite(output['total']) ?? (text === undefined && reasoning === undefined ? undefined : (text ?? 0) + (reasoning ?? 0))
  return {
    ...response,
    usage: {
      inputTokens: total,
      outputTokens: outputTotal,
      inputTokenDetails: { noCacheTokens: noCache, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite },
      outputTokenDetails: { reasoningTokens: reasoning },
    },
  }
}
