/**
 * A history exported for other programs: the flat `ExportMessage` shape of the export views, and
 * the structured-export view as lossless JSON and JSONL.
 *
 * @module
 */
import { toolResultText } from '../message/tool-result-content.ts'
import type { Message, Messages } from '../message/message.ts'
import type { Role } from '../message/role.ts'
import { forExport, forExportStructured } from './views.ts'
import { toJSON, toJSONL } from './codec.ts'

/**
 * A tool call in an `ExportMessage`: its id, name and arguments (parsed JSON, or the raw text when
 * it is not JSON).
 *
 * @example
 * import { exportMessages } from 'chatfold/history'
 * import { makeMessage, toolCall } from 'chatfold/message'
 * exportMessages([makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', arguments: '{"path":"."}' })] })])[0]?.tool_calls
 * // [{ id: 'c1', name: 'ls', arguments: { path: '.' } }]
 *
 * @since 0.1.0
 * @category export
 */
export type ExportToolCall = { readonly id: string; readonly name: string; readonly arguments: unknown }

/**
 * A clean, flat message for export, with snake_case keys, each omitted
 * when empty. It leaves out ids, kinds, token counts, images and reasoning signatures. A tool
 * message gives one `ExportMessage` per result; a metadata message gives its metadata as JSON
 * `content`.
 *
 * @example
 * import { exportMessages, type ExportMessage } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const flat: ReadonlyArray<ExportMessage> = exportMessages([textMessage('user', 'hi')]) // [{ role: 'user', content: 'hi' }]
 *
 * @since 0.1.0
 * @category export
 */
export type ExportMessage = {
  readonly role: Role
  readonly content?: string
  readonly thinking?: string
  readonly tool_calls?: ReadonlyArray<ExportToolCall>
  readonly tool_name?: string
  readonly tool_call_id?: string
  readonly created_at?: string
}

const parseArguments = (raw: string): unknown => {
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return raw
  }
}

const flatten = (m: Message, out: ExportMessage[]): void => {
  const at = m.createdAt === undefined ? {} : { created_at: m.createdAt }
  let content = ''
  let thinking = ''
  const calls: ExportToolCall[] = []
  let results = 0
  for (const p of m.parts) {
    if (p.type === 'text') content += p.text
    else if (p.type === 'reasoning' && p.redacted !== true) thinking += p.text
    else if (p.type === 'tool_call') calls.push({ id: p.id, name: p.name, arguments: parseArguments(p.arguments) })
    else if (p.type === 'tool_result') {
      results++
      out.push({
        role: m.role,
        ...(p.content === '' ? {} : { content: toolResultText(p) }),
        ...(p.name === undefined ? {} : { tool_name: p.name }),
        tool_call_id: p.toolCallId,
        ...at,
      })
    }
  }
  if (m.kind === 'metadata' && content === '' && m.metadata !== undefined) content = JSON.stringify(m.metadata)
  if (results > 0 && content === '' && thinking === '' && calls.length === 0) return
  out.push({
    role: m.role,
    ...(content === '' ? {} : { content }),
    ...(thinking === '' ? {} : { thinking }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
    ...at,
  })
}

const flat = (ms: Messages): ReadonlyArray<ExportMessage> => {
  const out: ExportMessage[] = []
  for (const m of ms) flatten(m, out)
  return out
}

/**
 * The history as clean `ExportMessage`s for human-readable formats:
 * the `forExport` view (no synthetic, ephemeral or metadata messages).
 *
 * @example
 * import { exportMessages } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * exportMessages([textMessage('user', 'hi', { createdAt: '2026-01-31T12:00:00.000Z' })])
 * // [{ role: 'user', content: 'hi', created_at: '2026-01-31T12:00:00.000Z' }]
 *
 * @since 0.1.0
 * @category export
 */
export const exportMessages = (ms: Messages): ReadonlyArray<ExportMessage> => flat(forExport(ms))

/**
 * The history as clean `ExportMessage`s for machine-readable formats: the `forExportStructured`
 * view, metadata included.
 *
 * @example
 * import { exportStructuredMessages } from 'chatfold/history'
 * import { makeMessage } from 'chatfold/message'
 * exportStructuredMessages([makeMessage({ role: 'user', kind: 'metadata', metadata: { turn: 1 } })])
 * // [{ role: 'user', content: '{"turn":1}' }]
 *
 * @since 0.1.0
 * @category export
 */
export const exportStructuredMessages = (ms: Messages): ReadonlyArray<ExportMessage> => flat(forExportStructured(ms))

/**
 * The `forExportStructured` view as indented, lossless JSON (the `toJSON` form, two-space indent,
 * ending with a newline), so `fromJSON` reads it back. For
 * the flat `ExportMessage` shape, `JSON.stringify(exportStructuredMessages(ms))`.
 *
 * @example
 * import { exportJSON, fromJSON } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const history = [textMessage('user', 'hi')]
 * fromJSON(exportJSON(history)) // right(history)
 *
 * @since 0.1.0
 * @category export
 */
export const exportJSON = (ms: Messages): string => `${toJSON(forExportStructured(ms), 2)}\n`

/**
 * The `forExportStructured` view as lossless JSONL, one message per line, so `fromJSONL` reads
 * it back.
 *
 * @example
 * import { exportJSONL, fromJSONL } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * const history = [textMessage('user', 'hi')]
 * fromJSONL(exportJSONL(history)) // right(history)
 *
 * @since 0.1.0
 * @category export
 */
export const exportJSONL = (ms: Messages): string => toJSONL(forExportStructured(ms))
