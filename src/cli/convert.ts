/**
 * `chatfold convert` and `chatfold check`: a history to a provider's request body (or another
 * format), and a request body or history against a provider's request rules.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { checkRequest, formatAdapterError, type RequestProvider, type RequestViolation } from '../adapters/index.ts'
import { OUTPUT_FORMATS, outputFormat, parseDoc } from './formats.ts'
import { loadHistory, readText, writeText } from './load.ts'
import type { CliIO } from './progress.ts'
import { CliFailure, type Common, EXIT, notes } from './shared.ts'

/** The options of `convert`. */
export type ConvertFlags = Common & { readonly to: string; readonly repair?: boolean; readonly foreignReasoning: 'drop' | 'text'; readonly model?: string }

/** `chatfold convert FILE --to FORMAT`. */
export const convertCommand = (io: CliIO, file: string, o: ConvertFlags): void => {
  const target = outputFormat(o.to)
  if (target === undefined) throw new CliFailure(EXIT.usage, `unknown output format ${o.to}: one of ${OUTPUT_FORMATS.map((f) => f.name).join(', ')}`)
  const h = loadHistory(file, o.from)
  notes(io, file, o, h.notes)
  const r = target.write({ repair: o.repair === true ? 'repair' : 'fail', foreignReasoning: o.foreignReasoning, ...(o.model === undefined ? {} : { model: o.model }) })(h.messages)
  if (E.isLeft(r)) throw new CliFailure(EXIT.problems, `cannot convert ${file} to ${o.to}: ${formatAdapterError(r.left)}${r.left.kind === 'invalid_tool_pairs' ? ' (--repair fixes them)' : ''}`)
  writeText(o.output, r.right.text, io.out)
  const ns = r.right.report?.notes ?? []
  if (o.json === true) io.err(`${JSON.stringify({ read: h.notes, notes: r.right.report?.notes ?? [], ...(r.right.report?.repair === undefined ? {} : { repair: r.right.report.repair }) })}\n`)
  else if (ns.length > 0) io.err(`${file}: ${ns.length} note${ns.length === 1 ? '' : 's'} from the conversion (--json lists them): ${[...new Set(ns.map((n) => n.kind))].join(', ')}\n`)
}

/** The options of `check`. */
export type CheckFlags = Common & { readonly provider: RequestProvider; readonly model?: string }

/**
 * `check FILE --provider P`: a request body of that provider (`{ messages }`, `{ input }`,
 * `{ contents }`, or its message array) is linted as it is, by `checkRequest`; a history in any
 * other format is converted with the provider's adapter, and every rule the adapter had to apply
 * (a `request_fixed` note) is reported as a violation of the stored history. Exit 1 when there is one.
 */
export const checkCommand = (io: CliIO, file: string, o: CheckFlags): void => {
  const doc = parseDoc(readText(file))
  const asRequest = E.isRight(doc) && doc.right.kind === 'json' && (o.from === undefined || o.from === o.provider) ? doc.right.value : undefined
  const field = { 'openai-chat': 'messages', 'openai-responses': 'input', anthropic: 'messages', gemini: 'contents', 'ai-sdk': 'messages' }[o.provider]
  const isBody = (u: unknown): boolean => typeof u === 'object' && u !== null && Array.isArray((u as Record<string, unknown>)[field])
  let violations: ReadonlyArray<RequestViolation>
  let checked: 'request' | 'history'
  if (asRequest !== undefined && (isBody(asRequest) || (Array.isArray(asRequest) && o.from === o.provider))) {
    const body = Array.isArray(asRequest) ? { [field]: asRequest } : asRequest
    const withModel = o.model === undefined || (body as Record<string, unknown>)['model'] !== undefined ? body : { ...(body as object), model: o.model }
    violations = checkRequest(o.provider)(withModel)
    checked = 'request'
  } else {
    const h = loadHistory(file, o.from)
    notes(io, file, o, h.notes)
    const target = outputFormat(o.provider)
    if (target === undefined) throw new CliFailure(EXIT.usage, `unknown provider ${o.provider}`)
    const r = target.write({ repair: 'fail', ...(o.model === undefined ? {} : { model: o.model }) })(h.messages)
    if (E.isLeft(r)) throw new CliFailure(EXIT.problems, `${file}: cannot be sent to ${o.provider}: ${formatAdapterError(r.left)}`)
    const fixed = (r.right.report?.notes ?? []).flatMap((n) => (n.kind === 'request_fixed' ? [{ path: n.path, rule: n.rule, message: `the adapter ${n.action} it` }] : []))
    violations = [...fixed, ...checkRequest(o.provider)(r.right.request)]
    checked = 'history'
  }
  if (o.json === true) io.out(`${JSON.stringify({ file, provider: o.provider, checked, violations })}\n`)
  else if (violations.length === 0) io.out(`${file}: follows every ${o.provider} request rule\n`)
  else for (const v of violations) io.out(`${file}: ${v.path}: ${v.message} (${v.rule})\n`)
  if (violations.length > 0) throw new CliFailure(EXIT.problems, o.json === true ? '' : `${violations.length} violation${violations.length === 1 ? '' : 's'} of ${o.provider}'s request rules`)
}
