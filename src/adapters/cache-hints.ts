/**
 * Prompt-cache hints written into a whole request body, where each provider takes them:
 * Anthropic's `cache_control` breakpoints (on the last tool, the end of the system prompt and the
 * last block of the last message, at most four in a request, those the body holds counted), and
 * OpenAI's `prompt_cache_key` (one key per conversation, so that its requests go to the same cache).
 *
 * @module
 */
import { isObject } from '../internal/object.ts'

/**
 * The cache hints a `to…Request` writer adds to the body (`cache` option): `off` (the default: the
 * body as the history and envelope give it), or hints: Anthropic breakpoints (`ttl`, default
 * Anthropic's 5 minutes), and OpenAI's `prompt_cache_key` when a `key` is given (the conversation's
 * id, say).
 *
 * @example
 * import type { CacheHints } from 'chatfold/adapters'
 * const hints: CacheHints = { key: 'chat-42', ttl: '1h' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type CacheHints = { readonly key?: string; readonly ttl?: '5m' | '1h' } | 'off'

/** The most `cache_control` breakpoints a Messages request may hold. */
export const MAX_BREAKPOINTS = 4

type Obj = Readonly<Record<string, unknown>>

const hasBreakpoint = (u: unknown): boolean => isObject(u) && u['cache_control'] !== undefined
const countIn = (xs: unknown): number => (Array.isArray(xs) ? xs.filter(hasBreakpoint).length : 0)

/** Whether a content block may carry a breakpoint: not a thinking block, not an empty text. */
const cacheable = (b: unknown): boolean =>
  isObject(b) && b['type'] !== 'thinking' && b['type'] !== 'redacted_thinking' && !(b['type'] === 'text' && b['text'] === '')

/**
 * Blocks (a string as one text block) with a breakpoint on the last one that may carry it;
 * `undefined` when none may, or the last already has one.
 */
const marked = (content: unknown, control: Obj): ReadonlyArray<unknown> | undefined => {
  const blocks: ReadonlyArray<unknown> = typeof content === 'string'
    ? (content === '' ? [] : [{ type: 'text', text: content }])
    : Array.isArray(content)
    ? content
    : []
  let i = blocks.length - 1
  while (i >= 0 && !cacheable(blocks[i])) i--
  const last = blocks[i]
  if (i < 0 || !isObject(last) || hasBreakpoint(last)) return undefined
  return blocks.map((b, j) => (j === i ? { ...last, cache_control: control } : b))
}

/**
 * A Messages request body with cache breakpoints: on the last block of the last message, the end of
 * the system prompt and the last tool, in that order, as long as the request holds fewer than four
 * (those it holds already counted); a string system prompt or message content becomes one text
 * block to carry it. `off` gives the body itself.
 */
export const withAnthropicBreakpoints = <B extends Obj>(hints: CacheHints | undefined, body: B): B => {
  if (hints === undefined || hints === 'off') return body
  const control = { type: 'ephemeral', ...(hints.ttl === undefined ? {} : { ttl: hints.ttl }) }
  const messages = Array.isArray(body['messages']) ? body['messages'] : []
  let count = countIn(body['tools']) + countIn(body['system']) + messages.reduce((n: number, m: unknown) => n + (isObject(m) ? countIn(m['content']) : 0), 0)
  const out: Record<string, unknown> = { ...body }
  const lastMessage: unknown = messages[messages.length - 1]
  if (count < MAX_BREAKPOINTS && isObject(lastMessage)) {
    const content = marked(lastMessage['content'], control)
    if (content !== undefined) {
      out['messages'] = [...messages.slice(0, -1), { ...lastMessage, content }]
      count++
    }
  }
  if (count < MAX_BREAKPOINTS && body['system'] !== undefined) {
    const system = marked(body['system'], control)
    if (system !== undefined) {
      out['system'] = system
      count++
    }
  }
  const tools = body['tools']
  const lastTool: unknown = Array.isArray(tools) ? tools[tools.length - 1] : undefined
  if (count < MAX_BREAKPOINTS && Array.isArray(tools) && isObject(lastTool) && !hasBreakpoint(lastTool))
    out['tools'] = [...tools.slice(0, -1), { ...lastTool, cache_control: control }]
  return { ...body, ...out }
}

/** An OpenAI request body with the conversation's `prompt_cache_key`, when the hints give a key and the body holds none. */
export const withOpenAICacheKey = <B extends Obj>(hints: CacheHints | undefined, body: B): B =>
  hints === undefined || hints === 'off' || hints.key === undefined || body['prompt_cache_key'] !== undefined ? body : { ...body, prompt_cache_key: hints.key }
