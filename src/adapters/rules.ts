/**
 * `checkRequest`: lints a request body, built by chatfold or by any other means, against the same
 * rule objects the `to…` adapters apply.
 *
 * @module
 */
import { aiSdkRules } from './ai-sdk/rules.ts'
import { anthropicRules } from './anthropic/rules.ts'
import { geminiRules } from './gemini/rules.ts'
import { openAIChatRules, openAIResponsesRules } from './openai/rules.ts'
import { checkRules, type RequestProvider, type RequestViolation, type Rule } from './rules-kit.ts'
import { isObject } from '../internal/object.ts'

export type { RequestProvider, RequestViolation } from './rules-kit.ts'

/** Each provider's rules, and the array field its request must hold. */
const PROVIDERS: Readonly<Record<RequestProvider, { readonly rules: ReadonlyArray<Rule>; readonly field: string }>> = {
  'openai-chat': { rules: openAIChatRules, field: 'messages' },
  'openai-responses': { rules: openAIResponsesRules, field: 'input' },
  anthropic: { rules: anthropicRules, field: 'messages' },
  gemini: { rules: geminiRules, field: 'contents' },
  'ai-sdk': { rules: aiSdkRules, field: 'messages' },
}

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
export const checkRequest =
  (provider: RequestProvider) =>
  (request: unknown): ReadonlyArray<RequestViolation> => {
    const { rules, field } = PROVIDERS[provider]
    if (!isObject(request)) return [{ path: '', rule: `${provider}/shape`, message: 'a request is an object' }]
    const body = request[field]
    if (!Array.isArray(body) && !(provider === 'openai-responses' && typeof body === 'string')) {
      return [{ path: field, rule: `${provider}/shape`, message: `a ${provider} request holds an array "${field}"` }]
    }
    return checkRules(rules, request)
  }
