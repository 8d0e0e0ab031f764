/**
 * What Gemini's own parts and fields become on other providers (see `foreign.ts`):
 *
 * - `executableCode` → a `code_execution` tool call with arguments `{ language, code }`, and its
 *   `codeExecutionResult` → that call's result (`output`; an outcome other than `OUTCOME_OK` is an
 *   error), when both carry the `id` that pairs them; without ids (what the Gemini API mostly sends)
 *   the code is a fenced code block and the result a text with its outcome, so that no call is left
 *   without its result;
 * - `groundingMetadata` (Google Search grounding), `urlContextMetadata` and `citationMetadata` of
 *   a response → text listing the sources;
 * - server-side `toolCall` and `toolResponse` parts, and parts of no known shape → left out, with
 *   the reason;
 * - Gemini-only fields on built-in parts (`videoMetadata`, `mediaResolution`, `partMetadata`,
 *   `fileData.displayName`, …) → left out and named; the markers chatfold adds itself (`alone`,
 *   `responseJson`) carry no Gemini data and cross silently.
 *
 * @module
 */
import type { Part, ProviderPart } from '../../message/part-model.ts'
import type { Portable, PortableFields, PortableRules } from '../foreign-kit.ts'
import { isObject } from '../../internal/object.ts'

/**
 * The tool name a Gemini code execution (`executableCode` with an id) becomes on other providers:
 * a call of this name with arguments `{ language, code }`, answered by the execution's result.
 *
 * @since 0.1.0
 * @category adapters
 */
export const CODE_EXECUTION_TOOL = 'code_execution'

const str = (o: unknown, key: string): string | undefined => {
  const v = isObject(o) ? o[key] : undefined
  return typeof v === 'string' ? v : undefined
}

const list = (o: unknown, key: string): ReadonlyArray<unknown> => {
  const v = isObject(o) ? o[key] : undefined
  return Array.isArray(v) ? v : []
}

const text = (value: string): Portable => ({ kind: 'parts', parts: [{ type: 'text', text: value }] })

const drop = (p: ProviderPart, why: string): Portable => ({ kind: 'drop', reason: `Gemini's "${p.kind}" ${why}` })

/** One source line: `- title: uri`, or the uri alone. */
const sourceLine = (uri: string | undefined, title: string | undefined): string | undefined =>
  uri === undefined ? (title === undefined ? undefined : `- ${title}`) : title === undefined || title === uri ? `- ${uri}` : `- ${title}: ${uri}`

/** Sources as text under a heading; a drop when there are none. */
const sources = (p: ProviderPart, heading: string, lines: ReadonlyArray<string | undefined>): Portable => {
  const kept = [...new Set(lines.filter((l): l is string => l !== undefined))]
  return kept.length === 0 ? drop(p, 'lists no sources') : text(`${heading}\n${kept.join('\n')}`)
}

const codeExecution = (p: ProviderPart): Portable => {
  const x = isObject(p.data) ? p.data['executableCode'] : undefined
  const code = str(x, 'code')
  if (code === undefined) return drop(p, 'holds no code')
  const language = str(x, 'language') ?? 'LANGUAGE_UNSPECIFIED'
  const id = str(x, 'id')
  if (id !== undefined) {
    return { kind: 'parts', parts: [{ type: 'tool_call', id, name: CODE_EXECUTION_TOOL, arguments: JSON.stringify({ language, code }), status: 'complete' }] }
  }
  const fence = language === 'LANGUAGE_UNSPECIFIED' ? '' : language.toLowerCase()
  return text(`\`\`\`${fence}\n${code}\n\`\`\``)
}

const codeResult = (p: ProviderPart): Portable => {
  const x = isObject(p.data) ? p.data['codeExecutionResult'] : undefined
  if (!isObject(x)) return drop(p, 'holds no result')
  const outcome = str(x, 'outcome') ?? 'OUTCOME_UNSPECIFIED'
  const output = str(x, 'output') ?? ''
  const id = str(x, 'id')
  if (id !== undefined) {
    return { kind: 'parts', parts: [{ type: 'tool_result', toolCallId: id, name: CODE_EXECUTION_TOOL, content: output, isError: outcome !== 'OUTCOME_OK' }] }
  }
  return text(`Code execution result (${outcome}):\n\`\`\`\n${output}\n\`\`\``)
}

const grounding = (p: ProviderPart): Portable => {
  const lines = list(p.data, 'groundingChunks').map((c) => {
    const web = isObject(c) ? (c['web'] ?? c['retrievedContext'] ?? c['maps']) : undefined
    return sourceLine(str(web, 'uri'), str(web, 'title'))
  })
  const queries = list(p.data, 'webSearchQueries').filter((q): q is string => typeof q === 'string')
  return sources(p, queries.length === 0 ? 'Sources:' : `Sources (searched: ${queries.join('; ')}):`, lines)
}

const part = (p: ProviderPart): Portable => {
  switch (p.kind) {
    case 'executableCode':
      return codeExecution(p)
    case 'codeExecutionResult':
      return codeResult(p)
    case 'groundingMetadata':
      return grounding(p)
    case 'urlContextMetadata':
      return sources(
        p,
        'Retrieved URLs:',
        list(p.data, 'urlMetadata').map((u) => sourceLine(str(u, 'retrievedUrl'), str(u, 'urlRetrievalStatus'))),
      )
    case 'citationMetadata':
      return sources(
        p,
        'Sources:',
        list(p.data, 'citations').map((c) => sourceLine(str(c, 'uri'), str(c, 'title'))),
      )
    case 'toolCall':
      return drop(p, 'is a server-side tool call that only Gemini runs')
    case 'toolResponse':
      return drop(p, 'is the result of a server-side tool call that only Gemini runs')
    default:
      return drop(p, 'has no equivalent on other providers')
  }
}

/** Markers chatfold itself puts in `providerFields.google`: no Gemini data, nothing to report. */
const MARKERS: ReadonlySet<string> = new Set(['alone', 'responseJson'])

const fields = (p: Part, f: Readonly<Record<string, unknown>>): PortableFields => ({ part: p, dropped: Object.keys(f).filter((k) => !MARKERS.has(k)) })

/** Gemini's rules for its parts and fields on other providers. */
export const googlePortable: PortableRules = { part, fields }
