/**
 * The pages another provider's web search part lists, as the AI SDK's `source-url` UI parts: an
 * Anthropic `web_search_tool_result`'s results, an OpenAI `web_search_call`'s sources. Private to
 * the AI SDK adapter.
 *
 * @module
 */
import type { ProviderPart } from '../../message/part-model.ts'
import { isObject } from '../../internal/object.ts'

/** A `source-url` UI part, as the AI SDK defines it. */
export type SourceUrlPart = { readonly type: 'source-url'; readonly sourceId: string; readonly url: string; readonly title?: string }

const page = (u: unknown): { readonly url: string; readonly title?: string } | undefined =>
  isObject(u) && typeof u['url'] === 'string' ? { url: u['url'], ...(typeof u['title'] === 'string' ? { title: u['title'] } : {}) } : undefined

/** The pages a provider part lists: none for a part that is no web search, or lists none. */
export const sourcesOf = (p: ProviderPart): ReadonlyArray<SourceUrlPart> => {
  const d = p.data
  if (!isObject(d)) return []
  const listed = p.provider === 'anthropic' && p.kind === 'web_search_tool_result' && Array.isArray(d['content'])
    ? d['content']
    : p.provider === 'openai' && p.kind === 'web_search_call' && isObject(d['action']) && Array.isArray(d['action']['sources'])
    ? d['action']['sources']
    : []
  const base = typeof d['tool_use_id'] === 'string' ? d['tool_use_id'] : typeof d['id'] === 'string' ? d['id'] : p.kind
  return listed.flatMap((u, i) => {
    const found = page(u)
    return found === undefined ? [] : [{ type: 'source-url' as const, sourceId: `${base}-${i}`, ...found }]
  })
}
