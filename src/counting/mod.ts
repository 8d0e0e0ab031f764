/**
 * What a provider counts, and bills: a whole request (system, messages, tool definitions, images by
 * each provider's documented rule) counted as each provider renders it, calibrated to its tokenizer,
 * and the providers' own token-count endpoints behind one {@link TokenCounter} interface.
 *
 * @example
 * import { countRequest } from 'chatfold/counting'
 * import * as E from 'fp-ts/Either'
 * const counted = countRequest('anthropic')({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] })
 * if (E.isRight(counted)) counted.right.total // the request's tokens, as Anthropic counts them
 *
 * @module
 */
export { calibrationFromUsage, countModelRequest, countRequest, type CountRequestOptions, DEFAULT_CALIBRATION, type RequestTokens } from './count.ts'
export {
  type AnthropicCountClient,
  anthropicCounter,
  cachedCounter,
  type GeminiCountClient,
  geminiCounter,
  type OpenAICountClient,
  openAICounter,
  type TokenCounter,
} from './_provider-count.ts'
