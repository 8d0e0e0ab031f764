/**
 * `chatfold convert` and `chatfold check`: a history to a provider's request body (or another
 * format), and a request body or history against a provider's request rules.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type ModelRequest } from '../adapters/request.ts'
import { type RequestViolation } from '../adapters/rules-kit.ts'
import { isWireApi, type WireApi } from '../adapters/vocabulary.ts'
import { WIRE_API_TABLE } from '../adapters/wire-apis.ts'
import { checkRequest } from '../adapters/rules.ts'
import { type AdapterNote, formatAdapterFailure, formatAdapterNote } from '../adapters/types.ts'
import { toJSONL } from '../history/codec.ts'
import type { RepairReport } from '../history/pairs.ts'
import { type Candidate, detectFormat, type Doc } from '../sessions/input-formats.ts'
import { OUTPUT_FORMATS, outputFormat } from './formats.ts'
import { isObject } from '../internal/object.ts'
import { docOf, type Loaded, loadHistory, loadOptions, namedFormat, notes, readText, writeText } from './_load.ts'
import type { CliIO } from './_progress.ts'
import { CliError, EXIT } from './_exit.ts'
import type { Common } from './_common.ts'

/** The options of `convert`. */
export type ConvertFlags = Common & {
  readonly to: string
  readonly repair?: boolean
  readonly foreignReasoning: 'drop' | 'text'
  readonly model?: string
  readonly archive?: string
}

/** How many of a conversion's notes `convert` prints one a line; `--json` gives them all. */
const MAX_NOTE_LINES = 20

/**
 * `chatfold convert FILE --to FORMAT`: the request body (or other format) on stdout or `-o`, each
 * note of the conversion (what the target could not take, and why) on stderr, and with `--archive`
 * what a compaction recorded in the input replaced. A provider's request body converted to another
 * provider goes whole: its model, tools, tool choice and settings mapped, and each one the target
 * cannot take noted; converted to a format of messages only, each is noted as left out. A history
 * that converts to a request with no message (none read, or none the provider is sent) is a failure
 * (exit 1) naming the file and why, not a body that no provider takes.
 */
export const convertCommand = async (io: CliIO, file: string, o: ConvertFlags): Promise<void> => {
  const target = outputFormat(o.to)
  if (target === undefined) throw new CliError(EXIT.usage, `unknown output format ${o.to}: one of ${OUTPUT_FORMATS.map((f) => f.name).join(', ')}`)
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const options = {
    repair: o.repair === true ? 'repair' : 'fail',
    foreignReasoning: o.foreignReasoning,
    ...(o.model === undefined ? {} : { model: o.model }),
  } as const
  // a request body goes out whole (its tools, settings and other fields mapped, or each noted)
  const whole = h.request !== undefined && target.writeRequest !== undefined
  const r = whole
    ? target.writeRequest(options)({ ...h.request, messages: h.messages, ...(o.model === undefined ? {} : { model: o.model }) })
    : target.write(options)(h.messages)
  if (E.isLeft(r))
    throw new CliError(
      EXIT.problems,
      `cannot convert ${file} to ${o.to}: ${formatAdapterFailure(r.left)}${r.left.kind === 'invalid_tool_pairs' ? ' (--repair fixes them)' : ''}`,
    )
  // a request with no message is one no provider takes: a failure naming the file and why, not a body
  const held = isWireApi(o.to) && isObject(r.right.request) ? r.right.request[FIELD(o.to)] : undefined
  if (isWireApi(o.to) && Array.isArray(held) && held.length === 0)
    throw new CliError(
      EXIT.problems,
      `cannot convert ${file} to ${o.to}: ${nothingSent(h, r.right.report?.notes ?? [])}; a request's ${FIELD(o.to)} must hold one`,
    )
  await writeText(o.output, r.right.text, io.out)
  if (o.archive !== undefined) await writeText(o.archive, toJSONL(h.archive), io.out)
  const ns = [...(r.right.report?.notes ?? []), ...(h.request !== undefined && !whole ? envelopeNotes(h.request, o.to) : [])]
  if (o.json === true)
    io.err(
      `${
        JSON.stringify({
          read: h.notes,
          ...(h.skipped.length === 0 ? {} : { skipped: h.skipped }),
          archived: h.archive.length,
          notes: ns,
          ...(r.right.report?.repair === undefined ? {} : { repair: r.right.report.repair }),
        })
      }\n`,
    )
  else {
    const repaired = repairLines(r.right.report?.repair)
    if (repaired.length > 0) io.err(`${file}: --repair changed the history:\n${repaired.map((l) => `  ${l}\n`).join('')}`)
    if (ns.length > 0) {
      io.err(`${file}: ${ns.length} note${ns.length === 1 ? '' : 's'} from the conversion:\n`)
      for (const n of ns.slice(0, MAX_NOTE_LINES)) io.err(`  ${formatAdapterNote(n)}\n`)
      if (ns.length > MAX_NOTE_LINES) io.err(`  … and ${ns.length - MAX_NOTE_LINES} more (--json lists them all)\n`)
    }
  }
}

/** Why a history sends no message: none read, or each read one left out (by reason), or only a system prompt. */
const nothingSent = (h: Loaded, ns: ReadonlyArray<AdapterNote>): string => {
  if (h.messages.length === 0) return `it holds no messages${h.archive.length === 0 ? '' : ` (${h.archive.length} archived by a compaction)`}`
  const reasons = new Map<string, number>()
  for (const n of ns) if (n.kind === 'omitted_message') reasons.set(n.reason, (reasons.get(n.reason) ?? 0) + 1)
  const system = h.messages.filter((m) => m.role === 'system').length
  const why = [
    ...[...reasons].map(([reason, k]) => `${k} left out (${reason === 'not_for_llm' ? 'display, bookmark or metadata messages, not for the model' : 'empty'})`),
    ...(system === 0 ? [] : [`${system} system message${system === 1 ? '' : 's'}, which go${system === 1 ? 'es' : ''} beside the messages`]),
  ]
  return `none of its ${h.messages.length} message${h.messages.length === 1 ? '' : 's'} is sent as one${why.length === 0 ? '' : `: ${why.join(', ')}`}`
}

/** What a repair did, one line a kind, each naming its tool calls or messages. */
const repairLines = (rep: RepairReport | undefined): ReadonlyArray<string> => {
  if (rep === undefined) return []
  const ids = (xs: ReadonlyArray<string>): string => xs.map((x) => `"${x}"`).join(', ')
  return [
    ...(rep.addedResults.length === 0 ? [] : [`gave the calls ${ids(rep.addedResults)} an "interrupted" error result`]),
    ...(rep.droppedResults.length === 0 ? [] : [`left out the results of ${ids(rep.droppedResults)}, which answer no call`]),
    ...((rep.movedResults ?? []).length === 0 ? [] : [`moved the results of ${ids(rep.movedResults ?? [])} back next to their calls`]),
    ...(rep.droppedMessages.length === 0 ? [] : [`left out the messages ${ids(rep.droppedMessages)} (only reasoning, or emptied)`]),
  ]
}

/**
 * What a request body's envelope held that an output format of messages only cannot carry: each
 * tool, and each setting, the model and the tool choice, named in a note.
 */
const envelopeNotes = (request: ModelRequest, to: string): ReadonlyArray<AdapterNote> => {
  const reason = `${to} holds messages only`
  const settings = [
    ...(request.model === undefined ? [] : ['model']),
    ...(request.toolChoice === undefined ? [] : ['toolChoice']),
    ...Object.keys(request.settings ?? {}),
    ...Object.entries(request.providerFields ?? {}).flatMap(([provider, fields]) => Object.keys(fields).map((k) => `${provider}.${k}`)),
  ]
  return [
    ...(request.tools ?? []).map((t): AdapterNote => ({ kind: 'tool_dropped', name: t.type === 'function' ? t.name : `${t.provider} ${t.kind}`, reason })),
    ...settings.map((setting): AdapterNote => ({ kind: 'setting_dropped', setting, reason })),
  ]
}

const FIELD = (api: WireApi): string => WIRE_API_TABLE[api].field

/** The options of `check`. */
export type CheckFlags = Common & { readonly provider?: WireApi; readonly model?: string }

type Checked = {
  readonly provider: WireApi
  readonly checked: 'request' | 'history'
  readonly violations: ReadonlyArray<RequestViolation>
  readonly notes: ReadonlyArray<RequestViolation>
  readonly detected?: string
}

/** A request body checked as it is, by `checkRequest`; the provider is the one its shape shows, or the one named when the shape allows it. */
const checkBody = (file: string, body: unknown, fit: Candidate, o: CheckFlags): Checked => {
  const shape = fit.format.name as WireApi
  const named = o.provider
  const hasField = (p: WireApi): boolean => Array.isArray(body) ? FIELD(p) === 'messages' : typeof body === 'object' && body !== null && FIELD(p) in body
  if (named !== undefined && named !== shape && (fit.plain !== true || !hasField(named)))
    throw new CliError(EXIT.usage, `${file} looks like a ${shape} request body (${fit.why}), not ${named}; check it with --provider ${shape}`)
  const provider = named ?? shape
  const wrapped = Array.isArray(body) ? { [FIELD(provider)]: body } : body
  const withModel = o.model === undefined || (wrapped as Record<string, unknown>)['model'] !== undefined ? wrapped : { ...(wrapped as object), model: o.model }
  return { provider, checked: 'request', violations: checkRequest(provider)(withModel), notes: [], ...(named === undefined ? { detected: fit.why } : {}) }
}

/**
 * A body no signature fits (an empty request, `{ "messages": [] }`, is any chat provider's) that
 * holds the named provider's field: that provider's request body.
 */
const namedBody = (doc: Doc, provider: WireApi | undefined): Candidate | undefined =>
  provider !== undefined && doc.kind === 'json' && isObject(doc.value) && FIELD(provider) in doc.value
    ? { format: namedFormat(provider), why: `--provider ${provider}` }
    : undefined

/**
 * `check FILE [--provider P]`: a request body (`{ messages }`, `{ input }`, `{ contents }`, or a
 * message array) is linted as it is, by `checkRequest`, against the provider its shape shows (naming
 * another provider is an error that says which one the shape looks like, unless the body is a plain
 * chat body both accept). A history in any other format is converted with the named provider's
 * adapter: what the adapter fixes by itself (a `request_fixed` note, e.g. a blank text block) is a
 * note, and only what it cannot fix (a violation left in the request, or a conversion it refuses) is
 * an error. Exit 1 when there is an error.
 */
export const checkCommand = (io: CliIO, file: string, o: CheckFlags): void => {
  const text = readText(file)
  const doc = docOf(file, text)
  const fit: Candidate | undefined = o.from !== undefined
    ? (isWireApi(o.from) ? { format: namedFormat(o.from), why: `--from ${o.from}` } : undefined)
    : E.getOrElseW(() => undefined)(detectFormat(doc)) ?? namedBody(doc, o.provider)
  let c: Checked
  let h: Pick<Loaded, 'notes' | 'skipped'> = { notes: [], skipped: [] }
  if (fit !== undefined && isWireApi(fit.format.name) && doc.kind === 'json') c = checkBody(file, doc.value, fit, o)
  else {
    const loaded = loadHistory(file, loadOptions(o))
    h = loaded
    notes(io, file, o, h)
    if (o.provider === undefined)
      throw new CliError(EXIT.usage, `${file} is not a request body but a history (${loaded.format}): name the provider whose rules apply with --provider`)
    const target = outputFormat(o.provider)
    if (target === undefined) throw new CliError(EXIT.usage, `unknown provider ${o.provider}`)
    const r = target.write({ repair: 'fail', ...(o.model === undefined ? {} : { model: o.model }) })(loaded.messages)
    if (E.isLeft(r))
      throw new CliError(
        EXIT.problems,
        `${file}: cannot be sent to ${o.provider}: ${formatAdapterFailure(r.left)}${
          r.left.kind === 'invalid_tool_pairs' ? ' (convert --repair fixes them)' : ''
        }`,
      )
    const fixed = (r.right.report?.notes ?? []).flatMap((
      n,
    ) => (n.kind === 'request_fixed' ? [{ path: n.path, rule: n.rule, message: `the adapter ${n.action} it` }] : []))
    c = { provider: o.provider, checked: 'history', violations: checkRequest(o.provider)(r.right.request), notes: fixed }
  }
  const { provider, checked, violations } = c
  if (o.json === true)
    io.out(
      `${
        JSON.stringify({
          file,
          provider,
          checked,
          ...(c.detected === undefined ? {} : { detected: c.detected }),
          violations,
          ...(checked === 'history' ? { notes: c.notes, read: h.notes, ...(h.skipped.length === 0 ? {} : { skipped: h.skipped }) } : {}),
        })
      }\n`,
    )
  else {
    for (const n of c.notes) io.out(`${file}: note: ${n.path}: ${n.message} (${n.rule})\n`)
    if (violations.length === 0)
      io.out(
        `${file}: follows every ${provider} request rule${
          c.notes.length > 0 ? ` once the adapter applies the ${c.notes.length} fix${c.notes.length === 1 ? '' : 'es'} noted` : ''
        }${c.detected === undefined ? '' : ` (its shape is ${provider}'s: ${c.detected})`}\n`,
      )
    else for (const v of violations) io.out(`${file}: ${v.path}: ${v.message} (${v.rule})\n`)
  }
  if (violations.length > 0)
    throw new CliError(
      EXIT.problems,
      o.json === true ? '' : `${violations.length} violation${violations.length === 1 ? '' : 's'} of ${provider}'s request rules`,
    )
}
