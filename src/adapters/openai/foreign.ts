/**
 * What OpenAI's own items and fields become on other providers (see `foreign.ts`), and on
 * OpenAI's other API (a Responses item in a Chat Completions request):
 *
 * - `web_search_call`: text naming the search (its query, or the page it opened or searched) and
 *   the sources it lists;
 * - `code_interpreter_call`: text with the code and its outputs (logs, image URLs);
 * - `file_search_call`: text with the queries and the files found;
 * - `mcp_call`: text naming the MCP tool, its arguments and its output or error;
 * - `image_generation_call`: the image it made;
 * - a message item kept whole: its text;
 * - `compaction`: left out, its content is encrypted for OpenAI and no other provider can read it;
 * - `item_reference`: left out, it names an item stored by OpenAI;
 * - every other kind (computer, shell, local shell and apply-patch calls and their outputs, MCP
 *   tool lists and approvals, tool search, programs, …): left out with the reason.
 *
 * On text, `url_citation` annotations become a list of sources appended to the text; every other
 * OpenAI field (item ids, status, logprobs, …) is left out and named in the note.
 *
 * A custom tool call (Codex's `apply_patch`) needs no rule: it is read as a tool call whose
 * arguments are the JSON object `{"input": <the raw input>}` and its output as a tool result, which
 * every provider takes; only its item fields are left out, with a note.
 *
 * @module
 */
import type { Part, ProviderPart } from '../../message/part-model.ts'
import type { Portable, PortableFields, PortableRules } from '../foreign-kit.ts'
import { isObject } from '../../internal/object.ts'
import { decodeBase64 } from '../../internal/base64.ts'

type Obj = Readonly<Record<string, unknown>>

const str = (o: unknown, k: string): string | undefined => (isObject(o) && typeof o[k] === 'string' ? o[k] : undefined)
const list = (o: unknown, k: string): ReadonlyArray<unknown> => (isObject(o) && Array.isArray(o[k]) ? o[k] : [])

const text = (value: string): Portable => ({ kind: 'parts', parts: [{ type: 'text', text: value }] })
const drop = (reason: string): Portable => ({ kind: 'drop', reason })

/** The sources of a list of `{ url, title? }` as lines. */
const sourceLines = (sources: ReadonlyArray<unknown>): ReadonlyArray<string> =>
  sources.flatMap((s) => {
    const url = str(s, 'url')
    if (url === undefined) return []
    const title = str(s, 'title')
    return [title === undefined ? `- ${url}` : `- ${title} (${url})`]
  })

const webSearch = (data: unknown): Portable => {
  const action = isObject(data) ? data['action'] : undefined
  const type = str(action, 'type')
  const head = type === 'search'
    ? `Web search: ${JSON.stringify(str(action, 'query') ?? list(action, 'queries').join('; '))}`
    : type === 'open_page'
    ? `Web page opened: ${str(action, 'url') ?? ''}`
    : type === 'find' || type === 'find_in_page'
    ? `Searched ${str(action, 'url') ?? 'a page'} for ${JSON.stringify(str(action, 'pattern') ?? '')}`
    : 'Web search'
  const sources = sourceLines(list(action, 'sources'))
  return text(sources.length === 0 ? head : `${head}\nSources:\n${sources.join('\n')}`)
}

const codeInterpreter = (data: unknown): Portable => {
  const outputs = list(data, 'outputs').flatMap((o) => {
    const logs = str(o, 'logs')
    if (logs !== undefined) return [logs]
    const url = str(o, 'url')
    return url === undefined ? [] : [`Image: ${url}`]
  })
  const code = str(data, 'code') ?? ''
  return text(`Code interpreter ran:\n\`\`\`python\n${code}\n\`\`\`${outputs.length === 0 ? '' : `\nOutput:\n${outputs.join('\n')}`}`)
}

const fileSearch = (data: unknown): Portable => {
  const found = list(data, 'results').flatMap((r) => {
    const name = str(r, 'filename') ?? str(r, 'file_id')
    return name === undefined ? [] : [`- ${name}${str(r, 'text') === undefined ? '' : `: ${str(r, 'text')}`}`]
  })
  const queries = list(data, 'queries').filter((q): q is string => typeof q === 'string')
  return text(`File search: ${queries.map((q) => JSON.stringify(q)).join(', ')}${found.length === 0 ? '' : `\nResults:\n${found.join('\n')}`}`)
}

const mcpCall = (data: unknown): Portable => {
  const name = `${str(data, 'server_label') ?? 'mcp'}.${str(data, 'name') ?? 'tool'}`
  const error = str(data, 'error')
  const outcome = error === undefined ? `Output: ${str(data, 'output') ?? ''}` : `Error: ${error}`
  return text(`MCP tool ${name} called with ${str(data, 'arguments') ?? '{}'}\n${outcome}`)
}

const imageGeneration = (data: unknown): Portable => {
  const result = str(data, 'result')
  const bytes = result === undefined ? undefined : decodeBase64(result)
  if (bytes === undefined) return drop('an image generation call without an image')
  const format = str(data, 'output_format')
  return { kind: 'parts', parts: [{ type: 'image', data: bytes, mediaType: `image/${format ?? 'png'}` }] }
}

/** The text of a message item kept whole (its text-like content parts). */
const messageText = (data: unknown): Portable => {
  const content = isObject(data) ? data['content'] : undefined
  const texts = typeof content === 'string' ? [content] : list(data, 'content').flatMap((c) => str(c, 'text') ?? str(c, 'refusal') ?? [])
  return texts.length === 0
    ? drop('a message with no text other providers can take')
    : { kind: 'parts', parts: texts.map((t): Part => ({ type: 'text', text: t })) }
}

const REASONS: Readonly<Record<string, string>> = {
  compaction: "OpenAI's compaction is encrypted; no other provider can read it",
  compaction_trigger: 'a request for OpenAI to compact the history',
  item_reference: 'it refers to an item stored by OpenAI',
  reasoning: 'encrypted reasoning only OpenAI can read',
  mcp_list_tools: "the tool list of an MCP server OpenAI called; no other provider's history has one",
  mcp_approval_request: "an approval of OpenAI's hosted MCP tool",
  mcp_approval_response: "an approval of OpenAI's hosted MCP tool",
  function: 'a deprecated function result, answering a call by name only',
}

const part = (p: ProviderPart): Portable => {
  switch (p.kind) {
    case 'web_search_call':
      return webSearch(p.data)
    case 'code_interpreter_call':
      return codeInterpreter(p.data)
    case 'file_search_call':
      return fileSearch(p.data)
    case 'mcp_call':
      return mcpCall(p.data)
    case 'image_generation_call':
      return imageGeneration(p.data)
    case 'message':
      return messageText(p.data)
    case 'output_text':
      return str(p.data, 'text') === undefined ? drop('an output text without text') : text(str(p.data, 'text') ?? '')
    case 'refusal':
      return str(p.data, 'refusal') === undefined ? drop('a refusal without text') : text(str(p.data, 'refusal') ?? '')
    default:
      return drop(REASONS[p.kind] ?? `OpenAI's "${p.kind}" is a tool item only OpenAI runs; no other provider takes it`)
  }
}

/** The `url_citation` annotations of an output text as a list of sources. */
const citations = (annotations: unknown): ReadonlyArray<string> =>
  sourceLines(Array.isArray(annotations) ? annotations.filter((a) => isObject(a) && a['type'] === 'url_citation') : [])

/** Fields that only describe the wire shape (a part's `type`) or chatfold's own marks: nothing is lost. */
const SHAPE = new Set(['type', 'continues', 'chatfold'])

const fields = (p: Part, f: Obj): PortableFields => {
  const named = Object.keys(f).filter((k) => !SHAPE.has(k))
  const sources = p.type === 'text' ? citations(f['annotations']) : []
  if (p.type !== 'text' || sources.length === 0) return { part: p, dropped: named }
  return {
    part: { ...p, text: `${p.text}\n\nSources:\n${sources.join('\n')}` },
    dropped: named.filter((k) => k !== 'annotations' || list(f, 'annotations').some((a) => !(isObject(a) && a['type'] === 'url_citation'))),
  }
}

/**
 * What of a message's OpenAI fields is lost elsewhere: a message item's or chat message's fields
 * but its shape (`type`, the role the message already has, chatfold's marks); the mark of a
 * request's instructions is not lost (they are a system message everywhere).
 */
const messageFields = (f: Obj): ReadonlyArray<string> =>
  ['item', 'message'].flatMap((api) => {
    const own = f[api]
    if (!isObject(own)) return []
    return Object.keys(own)
      .filter((k) => !SHAPE.has(k) && !(k === 'role' && (own[k] === 'user' || own[k] === 'system' || own[k] === 'developer')))
      .map((k) => `${api}.${k}`)
  })

/** OpenAI's rules: the documented mappings above, every other kind and field left out with a note. */
export const openAIPortable: PortableRules = { part, fields, messageFields }
