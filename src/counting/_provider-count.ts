/**
 * The provider's own count, for those who want its exact number before a large call: counters over
 * the token-count endpoints (Anthropic's `messages.countTokens`, OpenAI's
 * `responses.inputTokens.count`, Gemini's `models.countTokens`), each with the caller's own client
 * (typed by the one method it calls, so no SDK is needed here), and a cache so that the same
 * request is counted once. Counting costs a round trip, and the endpoints are rate-limited: count
 * when it matters (near the window), and let `countModelRequest` estimate the rest.
 *
 * @module
 */

// --- model ---

/**
 * Counts a request body's input tokens with the provider: a promise of the count, rejected with the
 * client's own error (or the signal's reason).
 *
 * @example
 * import type { TokenCounter } from 'chatfold/counting'
 * const offline: TokenCounter<{ readonly messages: ReadonlyArray<unknown> }> = async (body) => body.messages.length * 100
 *
 * @since 0.1.0
 * @category tokens
 */
export type TokenCounter<B> = (body: B, signal?: AbortSignal) => Promise<number>

/**
 * The part of an Anthropic SDK client that counting uses: `messages.countTokens`, whose parameter
 * type `P` the counter takes.
 *
 * @since 0.1.0
 * @category tokens
 */
export type AnthropicCountClient<P> = {
  readonly messages: { countTokens(body: P, options?: { signal?: AbortSignal }): PromiseLike<{ readonly input_tokens: number }> }
}

/**
 * The part of an OpenAI SDK client that counting uses: `responses.inputTokens.count`.
 *
 * @since 0.1.0
 * @category tokens
 */
export type OpenAICountClient<P> = {
  readonly responses: { readonly inputTokens: { count(body: P, options?: { signal?: AbortSignal }): PromiseLike<{ readonly input_tokens: number }> } }
}

/**
 * The part of a Google Gen AI SDK client that counting uses: `models.countTokens`.
 *
 * @since 0.1.0
 * @category tokens
 */
export type GeminiCountClient<P> = {
  readonly models: { countTokens(params: P): PromiseLike<{ readonly totalTokens?: number }> }
}

// --- cache ---

/**
 * A counter that asks `count` once per distinct request: the answers of the last `size` requests
 * (default 64) are kept by the request's JSON, and a request asked again while the first answer is
 * on its way shares it. A failed count is not kept.
 *
 * @example
 * import { cachedCounter } from 'chatfold/counting'
 * let calls = 0
 * const count = cachedCounter(async (body: { readonly text: string }) => (calls++, body.text.length))
 * await count({ text: 'hello' })
 * await count({ text: 'hello' }) // answered from the cache: calls === 1
 *
 * @since 0.1.0
 * @category tokens
 */
export const cachedCounter = <B>(count: TokenCounter<B>, opts: { readonly size?: number } = {}): TokenCounter<B> => {
  const size = Math.max(1, Math.floor(opts.size ?? 64))
  const kept = new Map<string, Promise<number>>()
  return (body, signal) => {
    const key = JSON.stringify(body)
    const hit = kept.get(key)
    if (hit !== undefined) {
      // most recently used last
      kept.delete(key)
      kept.set(key, hit)
      return hit
    }
    const answer = count(body, signal)
    kept.set(key, answer)
    answer.catch(() => {
      if (kept.get(key) === answer) kept.delete(key)
    })
    while (kept.size > size) {
      const oldest = kept.keys().next().value
      if (oldest === undefined) break
      kept.delete(oldest)
    }
    return answer
  }
}

// --- providers ---

/**
 * Counts a Messages request (the body `toAnthropic` or `toAnthropicRequest` writes, with its
 * `model`) with the caller's Anthropic client (`client.messages.countTokens`), cached.
 *
 * @example
 * import type Anthropic from '@anthropic-ai/sdk'
 * import { anthropicCounter } from 'chatfold/counting'
 * declare const client: Anthropic
 * const count = anthropicCounter(client)
 * const tokens = await count({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] })
 *
 * @since 0.1.0
 * @category tokens
 */
export const anthropicCounter = <P>(client: AnthropicCountClient<P>, opts: { readonly size?: number } = {}): TokenCounter<P> =>
  cachedCounter(async (body: P, signal?: AbortSignal) => (await client.messages.countTokens(body, signal === undefined ? {} : { signal })).input_tokens, opts)

/**
 * Counts a Responses request (the body `toOpenAIResponses` writes, with its `model`) with the
 * caller's OpenAI client (`client.responses.inputTokens.count`), cached.
 *
 * @example
 * import type OpenAI from 'openai'
 * import { openAICounter } from 'chatfold/counting'
 * declare const client: OpenAI
 * const count = openAICounter(client)
 * const tokens = await count({ model: 'gpt-5', input: [{ role: 'user', content: 'Hello' }] })
 *
 * @since 0.1.0
 * @category tokens
 */
export const openAICounter = <P>(client: OpenAICountClient<P>, opts: { readonly size?: number } = {}): TokenCounter<P> =>
  cachedCounter(
    async (body: P, signal?: AbortSignal) => (await client.responses.inputTokens.count(body, signal === undefined ? {} : { signal })).input_tokens,
    opts,
  )

/**
 * Counts a Gemini request with the caller's Google Gen AI client (`client.models.countTokens`),
 * cached: the SDK's parameters, `{ model, contents, config }`, where `contents` is what `toGemini`
 * writes and `config` carries its `systemInstruction` and `tools`. An answer without `totalTokens`
 * rejects.
 *
 * @example
 * import type { GoogleGenAI } from '@google/genai'
 * import { geminiCounter } from 'chatfold/counting'
 * declare const client: GoogleGenAI
 * const count = geminiCounter(client)
 * const tokens = await count({ model: 'gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] })
 *
 * @since 0.1.0
 * @category tokens
 */
export const geminiCounter = <P>(client: GeminiCountClient<P>, opts: { readonly size?: number } = {}): TokenCounter<P> =>
  cachedCounter(async (params: P) => {
    const r = await client.models.countTokens(params)
    if (typeof r.totalTokens !== 'number') throw new Error('Cannot count with Gemini: its answer has no totalTokens')
    return r.totalTokens
  }, opts)
