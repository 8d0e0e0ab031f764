/**
 * The prompt-cache hints the middleware writes into a call's options, as the AI SDK's providers
 * take them: for Anthropic, `providerOptions.anthropic.cacheControl` on the last tool, the system
 * prompt and the last message (at most four breakpoints in a request, those the call holds
 * counted); for OpenAI, the conversation's `providerOptions.openai.promptCacheKey`.
 *
 * @module
 */
import type { Vendor } from '../adapters/vocabulary.ts'
import { isObject } from '../internal/object.ts'
import { digest } from '../internal/digest.ts'
import type { LanguageModelCallOptions } from './prompt.ts'

type ProviderOptions = NonNullable<LanguageModelCallOptions['providerOptions']>

const EPHEMERAL = { type: 'ephemeral' } as const

/** Whether provider options already hold an Anthropic breakpoint. */
const marked = (o: unknown): boolean => {
  const a = isObject(o) ? o['anthropic'] : undefined
  return isObject(a) && (a['cacheControl'] !== undefined || a['cache_control'] !== undefined)
}

/** Provider options with an Anthropic breakpoint added. */
const withBreakpoint = (o: ProviderOptions | undefined): ProviderOptions => ({ ...o, anthropic: { ...o?.['anthropic'], cacheControl: EPHEMERAL } })

/** The key a conversation's requests are cached under: `chatfold-` and a digest of its key. */
export const promptCacheKeyOf = (conversation: string): string => `chatfold-${digest(conversation)}`

/**
 * The call's options with the cache hints of `provider` (`undefined` for a provider that takes none
 * here): what the call holds already is kept, and counted against Anthropic's four breakpoints.
 */
export const withCacheHints = (provider: Vendor, conversation: string, params: LanguageModelCallOptions): LanguageModelCallOptions => {
  if (provider === 'openai') {
    const openai = params.providerOptions?.['openai']
    if (openai?.['promptCacheKey'] !== undefined) return params
    return { ...params, providerOptions: { ...params.providerOptions, openai: { ...openai, promptCacheKey: promptCacheKeyOf(conversation) } } }
  }
  if (provider !== 'anthropic') return params
  const prompt = params.prompt
  const tools = params.tools ?? []
  let count = tools.filter((t) => t.type === 'function' && marked(t.providerOptions)).length
  for (const m of prompt)
    count += (marked(m.providerOptions) ? 1 : 0) + (typeof m.content === 'string' ? 0 : m.content.filter((p) => marked(p.providerOptions)).length)
  let out = prompt
  const mark = (i: number): void => {
    const m = out[i]
    if (m === undefined || count >= 4 || marked(m.providerOptions) || (typeof m.content !== 'string' && m.content.some((p) => marked(p.providerOptions))))
      return
    out = out.map((x, j) => (j === i ? { ...x, providerOptions: withBreakpoint(x.providerOptions) } : x))
    count++
  }
  mark(prompt.length - 1)
  let system = 0
  while (system < prompt.length && prompt[system]?.role === 'system') system++
  if (system > 0 && system < prompt.length) mark(system - 1)
  const last = tools.length - 1
  const tool = tools[last]
  const outTools = count < 4 && tool?.type === 'function' && !marked(tool.providerOptions)
    ? tools.map((t, j) => (j === last && t.type === 'function' ? { ...t, providerOptions: withBreakpoint(t.providerOptions) } : t))
    : undefined
  if (out === prompt && outTools === undefined) return params
  return { ...params, prompt: out, ...(outTools === undefined ? {} : { tools: outTools }) }
}
