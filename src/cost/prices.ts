/**
 * The built-in price table: current Anthropic, OpenAI and Gemini models, dated, with its sources.
 *
 * @module
 */
import type { Price, PriceTable } from './price.ts'

// Anthropic: a 5-minute cache write is 1.25 × input, a 1-hour one 2 ×, a cache read 0.1 ×.
const claude = (model: string, input: number, output: number, more: Partial<Price> = {}): Price => ({
  model,
  provider: 'anthropic',
  input,
  output,
  cacheRead: input / 10,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
  ...more,
})

// The long-context tier of Sonnet 4 and 4.5: over 200K prompt tokens, the whole request at 2 × input, 1.5 × output.
const sonnetLong = { above: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite5m: 7.5, cacheWrite1h: 12 }

// OpenAI and Gemini charge nothing extra to write their implicit caches: a write is ordinary input.
const openai = (model: string, input: number, cacheRead: number, output: number, aliases?: ReadonlyArray<string>): Price => ({
  model,
  provider: 'openai',
  input,
  output,
  cacheRead,
  cacheWrite5m: input,
  ...(aliases === undefined ? {} : { aliases }),
})

const gemini = (model: string, input: number, cacheRead: number, output: number, more: Partial<Price> = {}): Price => ({
  model,
  provider: 'google',
  input,
  output,
  cacheRead,
  cacheWrite5m: input,
  ...more,
})

/**
 * The built-in prices, in USD per million tokens, as the providers' public pricing pages list them
 * on the day in `taken`: Claude (Opus, Sonnet and Haiku 3 to 4.7, with the 5-minute and 1-hour
 * cache writes and Sonnet 4/4.5's long-context tier), OpenAI (GPT-4o to GPT-5.5, o3, o4-mini) and
 * Gemini (2.5 and 3, with 2.5 Pro's and 3 Pro's tier over 200K prompt tokens). Standard tier only:
 * batch and priority discounts, data-residency surcharges, Gemini's cache storage per hour and
 * server tool fees are not modelled. Extend or override it with `withPrices`.
 *
 * @example
 * import { PRICES } from 'chatfold/cost'
 * PRICES.taken // '2026-11-29'
 * PRICES.prices.some((p) => p.model === 'claude-sonnet-4-5') // true
 *
 * @since 0.1.0
 * @category cost
 */
export const PRICES: PriceTable = {
  taken: '2026-11-29',
  sources: [
    'https://docs.anthropic.com/en/docs/about-claude/pricing',
    'https://platform.openai.com/docs/pricing',
    'https://ai.google.dev/gemini-api/docs/pricing',
  ],
  prices: [
    claude('claude-opus-4-7', 5, 25),
    claude('claude-opus-4-6', 5, 25),
    claude('claude-opus-4-5', 5, 25),
    claude('claude-opus-4-1', 15, 75),
    claude('claude-opus-4', 15, 75, { aliases: ['claude-4-opus'] }),
    claude('claude-sonnet-4-6', 3, 15),
    claude('claude-sonnet-4-5', 3, 15, { longContext: sonnetLong }),
    claude('claude-sonnet-4', 3, 15, { aliases: ['claude-4-sonnet'], longContext: sonnetLong }),
    claude('claude-3-7-sonnet', 3, 15),
    claude('claude-haiku-4-5', 1, 5),
    claude('claude-3-5-haiku', 0.8, 4),
    claude('claude-3-haiku', 0.25, 1.25, { cacheWrite5m: 0.3, cacheWrite1h: 0.5 }),
    openai('gpt-5.5', 5, 0.5, 30),
    openai('gpt-5.4', 2.5, 0.25, 15),
    openai('gpt-5.4-mini', 0.75, 0.075, 4.5),
    openai('gpt-5.4-nano', 0.2, 0.02, 1.25),
    openai('gpt-5.2', 1.75, 0.175, 14, ['gpt-5.2-codex']),
    openai('gpt-5.1', 1.25, 0.125, 10, ['gpt-5.1-codex', 'gpt-5.1-codex-max', 'gpt-5.1-chat-latest']),
    openai('gpt-5', 1.25, 0.125, 10, ['gpt-5-codex', 'gpt-5-chat-latest']),
    openai('gpt-5-mini', 0.25, 0.025, 2, ['gpt-5.1-codex-mini']),
    openai('gpt-5-nano', 0.05, 0.005, 0.4),
    openai('gpt-4.1', 2, 0.5, 8),
    openai('gpt-4.1-mini', 0.4, 0.1, 1.6),
    openai('gpt-4.1-nano', 0.1, 0.025, 0.4),
    openai('gpt-4o', 2.5, 1.25, 10),
    openai('gpt-4o-mini', 0.15, 0.075, 0.6),
    openai('o3', 2, 0.5, 8),
    openai('o4-mini', 1.1, 0.275, 4.4),
    gemini('gemini-3-pro-preview', 2, 0.2, 12, {
      aliases: ['gemini-3-pro'],
      longContext: { above: 200_000, input: 4, output: 18, cacheRead: 0.4, cacheWrite5m: 4 },
    }),
    gemini('gemini-3-flash-preview', 0.5, 0.05, 3, { aliases: ['gemini-3-flash'] }),
    gemini('gemini-2.5-pro', 1.25, 0.125, 10, { longContext: { above: 200_000, input: 2.5, output: 15, cacheRead: 0.25, cacheWrite5m: 2.5 } }),
    gemini('gemini-2.5-flash', 0.3, 0.03, 2.5),
    gemini('gemini-2.5-flash-lite', 0.1, 0.01, 0.4),
  ],
}
