/**
 * `checkRequest`: lints a request body, built by chatfold or by any other means, against the same
 * rule objects the `to…` adapters apply.
 *
 * @module
 */
import { checkRules, type RequestViolation } from './rules-kit.ts'
import type { WireApi } from './vocabulary.ts'
import { WIRE_API_TABLE } from './wire-apis.ts'
import { isObject } from '../internal/object.ts'

export type { RequestViolation } from './rules-kit.ts'

/**
 * Every place where a request breaks a rule of its provider, by path: the same rules the `to…`
 * adapters apply (and report as `request_fixed` notes), so a stored history can be checked before
 * the provider refuses it. A Gemini request is checked against Gemini 3's signature rule when it
 * names a `gemini-3` `model`. Returns `[]` for a request that follows every rule; never throws.
 *
 * @example
 * import { checkRequest } from 'chatfold/adapters'
 * checkRequest('anthropic')({ messages: [{ role: 'user', content: ' ' }] })
 * // [{ path: 'messages[0].content', rule: 'anthropic/text-not-blank', message: 'a text block must hold non-whitespace text' }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const checkRequest = (provider: WireApi) => (request: unknown): ReadonlyArray<RequestViolation> => {
  const { rules, field, fieldMayBeText } = WIRE_API_TABLE[provider]
  if (!isObject(request)) return [{ path: '', rule: `${provider}/shape`, message: 'a request is an object' }]
  const body = request[field]
  if (!Array.isArray(body) && !(fieldMayBeText === true && typeof body === 'string')) {
    return [{ path: field, rule: `${provider}/shape`, message: `a ${provider} request holds an array "${field}"` }]
  }
  return checkRules(rules, request)
}
