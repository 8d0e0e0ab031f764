/**
 * What Anthropic's own blocks and fields become on other providers (see `foreign.ts`):
 *
 * - a compaction block: a text part with its summary (an encrypted one without a summary is left out);
 * - a server tool call (`server_tool_use`): a text part naming the tool and its input;
 * - web search results: a text part listing each result's title and URL; a web fetch result: the
 *   URL, and the page's text when it is plain text; code execution results (Python, bash, the text
 *   editor): a text part with the output and exit code; an advisor's result: its text;
 * - a search result block: a text part with its title, source and text;
 * - an MCP tool call and its result: a tool call and a tool result;
 * - citations on a text: the sources appended to the text;
 * - an image or document kept verbatim: an image or file part with its bytes or URL, a document of
 *   content blocks its text;
 * - everything else (tool search results, container uploads, tool additions and removals, MCP tool
 *   listings, fallbacks, images and documents by Files API id, `cache_control` and other fields) is
 *   left out with its reason.
 *
 * @module
 */
import type { Part, ProviderPart } from '../../message/part-model.ts'
import type { Portable, PortableFields, PortableRules } from '../foreign-kit.ts'
import { isObject } from '../../internal/object.ts'
import { decodeBase64 } from '../../internal/base64.ts'

type Obj = Readonly<Record<string, unknown>>

const str = (o: unknown, k: string): string | undefined => (isObject(o) && typeof o[k] === 'string' ? o[k] : undefined)
const num = (o: unknown, k: string): number | undefined => (isObject(o) && typeof o[k] === 'number' ? o[k] : undefined)
const list = (o: unknown, k: string): ReadonlyArray<unknown> => (isObject(o) && Array.isArray(o[k]) ? o[k] : [])

const text = (value: string): Portable => ({ kind: 'parts', parts: [{ type: 'text', text: value }] })
const drop = (reason: string): Portable => ({ kind: 'drop', reason })

/** The text blocks of a content that is a string or a list of blocks, joined. */
const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content)
    ? content
      .map((b) => str(b, 'text') ?? '')
      .filter((s) => s !== '')
      .join('\n')
    : ''

/** The error code of a server tool's error result, when it is one. */
const errorCode = (
  content: unknown,
): string | undefined => (str(content, 'type')?.endsWith('_error') === true ? (str(content, 'error_code') ?? 'unknown error') : undefined)

const webSearch = (d: Obj): Portable => {
  const failed = errorCode(d['content'])
  if (failed !== undefined) return text(`Web search failed: ${failed}`)
  const lines = (Array.isArray(d['content']) ? d['content'] : []).map((r) => `- ${str(r, 'title') ?? str(r, 'url') ?? ''} (${str(r, 'url') ?? ''})`)
  return text(['Web search results:', ...lines].join('\n'))
}

const webFetch = (d: Obj): Portable => {
  const c = d['content']
  const failed = errorCode(c)
  if (failed !== undefined) return text(`Web fetch failed: ${failed}`)
  const source = isObject(c) && isObject(c['content']) ? c['content']['source'] : undefined
  const page = str(source, 'type') === 'text' ? str(source, 'data') : undefined
  return text([`Fetched ${str(c, 'url') ?? 'a page'}`, ...(page === undefined ? [] : [page])].join('\n'))
}

const execution = (label: string, d: Obj): Portable => {
  const c = d['content']
  const failed = errorCode(c)
  if (failed !== undefined) return text(`${label} failed: ${failed}`)
  const kind = str(c, 'type') ?? ''
  if (kind.startsWith('text_editor')) {
    const body = str(c, 'content') ?? (list(c, 'lines').length > 0 ? list(c, 'lines').join('\n') : JSON.stringify(c))
    return text(`${label}:\n${body}`)
  }
  const stdout = str(c, 'stdout') ?? (str(c, 'encrypted_stdout') === undefined ? '' : '(encrypted output)')
  const stderr = str(c, 'stderr') ?? ''
  const files = list(c, 'content').flatMap((f) => {
    const id = str(f, 'file_id')
    return id === undefined ? [] : [id]
  })
  return text(
    [
      `${label} (exit code ${num(c, 'return_code') ?? '?'}):`,
      ...(stdout === '' ? [] : [stdout]),
      ...(stderr === '' ? [] : [`stderr:\n${stderr}`]),
      ...(files.length === 0 ? [] : [`files: ${files.join(', ')}`]),
    ].join('\n'),
  )
}

const serverCall = (d: Obj): Portable => text(`Called the ${str(d, 'name') ?? 'server'} tool: ${JSON.stringify(d['input'] ?? {})}`)

const searchResultText = (d: unknown): string =>
  [`${str(d, 'title') ?? ''} (${str(d, 'source') ?? ''})`, textOf(isObject(d) ? d['content'] : undefined)].filter((s) => s !== '').join('\n')

const searchResult = (d: Obj): Portable => text(searchResultText(d))

const mcpCall = (d: Obj): Portable => {
  const id = str(d, 'id')
  const name = str(d, 'name')
  if (id === undefined || name === undefined) return drop('an MCP tool call without an id or name')
  return { kind: 'parts', parts: [{ type: 'tool_call', id, name, arguments: JSON.stringify(d['input'] ?? {}), status: 'complete' }] }
}

const mcpResult = (d: Obj): Portable => {
  const id = str(d, 'tool_use_id')
  if (id === undefined) return drop('an MCP tool result without a tool_use_id')
  return { kind: 'parts', parts: [{ type: 'tool_result', toolCallId: id, content: textOf(d['content']), isError: d['is_error'] === true }] }
}

const advisor = (d: Obj): Portable => {
  const said = str(d['content'], 'text')
  return said === undefined ? drop('an advisor result that is encrypted or failed') : text(said)
}

/**
 * An image or document block that stayed verbatim (a source no part gives back byte for byte): its
 * bytes or URL as an image or file part, a document of content blocks as its text; one by Files API
 * id is left out.
 */
const media = (kind: 'image' | 'document') => (d: Obj): Portable => {
  const source = d['source']
  const type = str(source, 'type')
  const title = str(d, 'title')
  const mediaType = str(source, 'media_type') ?? (kind === 'image' ? undefined : 'application/pdf')
  if (type === 'content') return text([...(title === undefined ? [] : [title]), textOf(isObject(source) ? source['content'] : undefined)].join('\n'))
  const data = type === 'base64' ? decodeBase64(str(source, 'data') ?? '') : undefined
  const url = type === 'url' ? str(source, 'url') : undefined
  const where = data !== undefined ? { data } : url !== undefined ? { url } : undefined
  if (where === undefined) return drop(`${kind === 'image' ? 'an image' : 'a document'} by Anthropic Files API id`)
  if (kind === 'image') return { kind: 'parts', parts: [{ type: 'image', ...where, ...(mediaType === undefined ? {} : { mediaType }) }] }
  return {
    kind: 'parts',
    parts: [{ type: 'file', ...where, mediaType: mediaType ?? 'application/octet-stream', ...(title === undefined ? {} : { filename: title }) }],
  }
}

const RULES: Readonly<Record<string, (d: Obj) => Portable>> = {
  image: media('image'),
  document: media('document'),
  compaction: (d) => {
    const summary = str(d, 'content')
    return summary === undefined || summary === '' ? drop('an encrypted compaction block without a summary') : text(summary)
  },
  server_tool_use: serverCall,
  web_search_tool_result: webSearch,
  web_fetch_tool_result: webFetch,
  code_execution_tool_result: (d) => execution('Code execution', d),
  bash_code_execution_tool_result: (d) => execution('Bash', d),
  text_editor_code_execution_tool_result: (d) => execution('Text editor', d),
  advisor_tool_result: advisor,
  search_result: searchResult,
  mcp_tool_use: mcpCall,
  mcp_tool_result: mcpResult,
}

const REASONS: Readonly<Record<string, string>> = {
  tool_search_tool_result: 'tool references found by Anthropic’s tool search mean nothing to another provider',
  container_upload: 'a file uploaded to Anthropic’s code execution container',
  tool_addition: 'a change to the tools Anthropic offers the model',
  tool_removal: 'a change to the tools Anthropic offers the model',
  mcp_tool_listing: 'the tools an MCP server listed to Anthropic',
  fallback: 'Anthropic’s record of a model fallback',
}

const part = (p: ProviderPart): Portable => {
  const rule = RULES[p.kind]
  if (rule !== undefined && isObject(p.data)) return rule(p.data)
  return drop(REASONS[p.kind] ?? `Anthropic's "${p.kind}" has no equivalent on other providers`)
}

/** A citation as one line of sources. */
const citationLine = (c: unknown): string => {
  const quote = str(c, 'cited_text')
  const where = str(c, 'url') ?? str(c, 'source')
  const title = str(c, 'title') ?? str(c, 'document_title')
  const named = [title, where === undefined ? undefined : `(${where})`].filter((s) => s !== undefined).join(' ')
  return `- ${named === '' ? 'source' : named}${quote === undefined ? '' : `: "${quote}"`}`
}

/** Whether a block of a result's content reached the other provider as a part (text, or media by bytes or URL). */
const carried = (b: unknown): boolean => {
  const type = str(b, 'type')
  if (type === 'text' || type === 'search_result') return true
  if (type !== 'image' && type !== 'document') return false
  const source = isObject(b) ? b['source'] : undefined
  return ['base64', 'url', 'text'].includes(str(source, 'type') ?? '')
}

const fields = (p: Part, all: Readonly<Record<string, unknown>>): PortableFields => {
  let out = p
  const dropped: string[] = []
  for (const [k, v] of Object.entries(all)) {
    if (k === 'citations' && out.type === 'text' && Array.isArray(v) && v.length > 0) {
      out = { ...out, text: `${out.text}\n\nSources:\n${[...new Set(v.map(citationLine))].join('\n')}` }
    } else if (k === 'citations' && v === null) {
      continue
    } else if (k === 'content' && out.type === 'tool_result' && Array.isArray(v)) {
      const found = v.filter((b) => str(b, 'type') === 'search_result').map(searchResultText)
      if (found.length > 0) out = { ...out, content: [out.content, ...found].filter((s) => s !== '').join('\n\n') }
      if (!v.every(carried)) dropped.push('content')
    } else if (!(k === 'is_error' && v === false)) dropped.push(k)
  }
  return { part: out, dropped }
}

/** A system turn's fields: its role is the message's own; the others (`clear_at`, …) are lost elsewhere. */
const message = (all: Readonly<Record<string, unknown>>): ReadonlyArray<string> => Object.keys(all).filter((k) => k !== 'role')

/** Anthropic's rules: the documented mappings, and a reason for each block left out. */
export const anthropicPortable: PortableRules = { part, fields, messageFields: message }
