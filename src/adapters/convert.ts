/**
 * The conversion every `to…` runs: its context (options, notes, id rewriting, the first hard
 * error), the preparation of the history (the `forLLM` view, what crosses from other providers, the
 * tool-pair check or repair), and what a writer records into the context as it goes (ids, parts
 * left out, reasoning the target cannot verify, arguments that are not an object). Not exported from
 * the package.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part, type ReasoningPart, type TextPart, type ToolCallPart } from '../message/part-model.ts'
import { type Message, type Messages } from '../message/message.ts'
import { forLLM } from '../history/views.ts'
import { type RepairReport, repairToolPairs, validateToolPairs } from '../history/pairs.ts'
import type { AdapterFailure, AdapterNote, AdapterOptions, AdapterResult } from './types.ts'
import { vendorOf, type WireApi } from './vocabulary.ts'
import { forTarget } from './foreign.ts'
import { isObject } from '../internal/object.ts'
import { parseJson } from './tool-turns.ts'

/**
 * The key under which a wire API keeps its own provider parts and fields, and the `provider` of the
 * messages whose reasoning it can verify: its vendor, or `'ai-sdk'` for the AI SDK (which carries
 * every vendor's reasoning under their own keys).
 */
const ownerOf = (api: WireApi): string => vendorOf(api) ?? api

/** The state of one conversion: options, notes, the id rewriting, the first hard error. Never escapes a call. */
export type Context = {
  readonly api: WireApi
  /** see `ownerOf` */
  readonly owner: string
  readonly repair: 'fail' | 'repair'
  readonly foreignReasoning: 'drop' | 'text'
  readonly model: string | undefined
  readonly notes: AdapterNote[]
  readonly ids: Map<string, string>
  error: AdapterFailure | undefined
}

/** A fresh context for writing a history into `api` with the options. */
export const newContext = (api: WireApi, options: AdapterOptions): Context => ({
  api,
  owner: ownerOf(api),
  repair: options.repair ?? 'fail',
  foreignReasoning: options.foreignReasoning ?? 'drop',
  model: options.model,
  notes: [],
  ids: new Map(),
  error: undefined,
})

/** How a target constrains tool-call ids: the test of a valid id, and a fix that makes one valid. */
export type IdRule = { readonly valid: (id: string) => boolean; readonly fix: (id: string) => string }

/** Ids that are at least one character long. */
export const nonEmptyIds: IdRule = { valid: (id) => id !== '', fix: () => 'call' }

/**
 * Runs what every `to…` does first: the `forLLM` view (noting what it left out), then what crosses
 * from other providers (`forTarget`: their blocks and fields mapped or left out, with notes), then the tool-pair
 * check (failing, or repairing with `repair: 'repair'`), then the id rewriting for the target.
 */
export const prepare = (
  api: WireApi,
  options: AdapterOptions,
  rule: IdRule,
  ms: Messages,
): E.Either<AdapterFailure, { readonly messages: Messages; readonly context: Context; readonly repair?: RepairReport }> => {
  const context = newContext(api, options)
  const view = forLLM(ms)
  if (view !== ms) {
    const kept = new Map(view.map((m) => [m.id, m]))
    for (const m of ms) {
      const v = kept.get(m.id)
      if (v === undefined) context.notes.push({ kind: 'omitted_message', messageId: m.id, reason: 'not_for_llm' })
      // the parts a compaction boundary replaced in its own message (those before it)
      else for (const p of m.parts.slice(0, m.parts.length - v.parts.length)) omitPart(context, m, p, 'before a compaction boundary')
    }
  }
  const portable = forTarget(context.owner, view, context.notes)
  const check = validateToolPairs(portable)
  let messages = portable
  let repair: RepairReport | undefined
  if (!check.valid) {
    if (context.repair === 'fail') return E.left({ kind: 'invalid_tool_pairs', issues: check.issues })
    const repaired = repairToolPairs(portable)
    messages = repaired.messages
    repair = repaired.report
  } else if (context.repair === 'repair') {
    repair = { addedResults: [], droppedResults: [], droppedMessages: [], changed: false }
  }
  planIds(context, rule, messages)
  return E.right({ messages, context, ...(repair === undefined ? {} : { repair }) })
}

/**
 * Runs a conversion: `prepare`, then `convert` on the prepared messages; the first hard error it
 * records, or the request with its report.
 */
export const convertWith = <A>(
  api: WireApi,
  options: AdapterOptions,
  rule: IdRule,
  ms: Messages,
  convert: (context: Context, messages: Messages) => A,
): AdapterResult<A> => {
  const prepared = prepare(api, options, rule, ms)
  if (E.isLeft(prepared)) return prepared
  const { messages, context, repair } = prepared.right
  const request = convert(context, messages)
  return context.error !== undefined
    ? E.left(context.error)
    : E.right({ request, report: { ...(repair === undefined ? {} : { repair }), notes: context.notes } })
}

/**
 * Maps each tool-call id to one valid for the target, the same for a call and its result: valid ids
 * are kept, invalid ones fixed and made unique (`_2`, `_3`, …) among all ids of the history.
 */
const planIds = (context: Context, rule: IdRule, ms: Messages): void => {
  const originals = new Set<string>()
  for (const m of ms) {
    for (const p of m.parts) {
      if (isToolCall(p)) originals.add(p.id)
      else if (isToolResult(p)) originals.add(p.toolCallId)
    }
  }
  const taken = new Set<string>()
  for (const id of originals) if (rule.valid(id)) taken.add(id)
  for (const id of originals) {
    if (rule.valid(id)) continue
    const base = rule.fix(id)
    let candidate = base
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`
    taken.add(candidate)
    context.ids.set(id, candidate)
    context.notes.push({ kind: 'id_renamed', from: id, to: candidate })
  }
}

/** The id a tool call or result goes out with. */
export const idFor = (context: Context, id: string): string => context.ids.get(id) ?? id

/** Records a part the target cannot carry. */
export const omitPart = (context: Context, m: Message, part: Part, reason: string): undefined => {
  context.notes.push({ kind: 'omitted_part', messageId: m.id, part: part.type, reason })
  return undefined
}

/**
 * Whether the target can verify the reasoning of `m`: it comes from the target provider, and from
 * the target model when both the message and the options name one.
 */
export const isNative = (context: Context, m: Message): boolean =>
  m.provider === context.owner && (context.model === undefined || m.model === undefined || m.model === context.model)

/**
 * Reasoning the target cannot take as reasoning: nothing (`drop`) or a `<thinking>` text part
 * (`text`); opaque (redacted) reasoning and empty reasoning are always dropped.
 */
export const foreignReasoning = (context: Context, m: Message, p: ReasoningPart, reason: 'foreign' | 'unsigned'): ReadonlyArray<TextPart> => {
  if (p.redacted === true) {
    context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason: 'opaque' })
    return []
  }
  if (context.foreignReasoning === 'drop' || p.text === '') {
    context.notes.push({ kind: 'reasoning_dropped', messageId: m.id, reason })
    return []
  }
  context.notes.push({ kind: 'reasoning_as_text', messageId: m.id })
  return [{ type: 'text', text: `<thinking>\n${p.text}\n</thinking>` }]
}

/**
 * A tool call's arguments as a JSON object. Arguments that are not one fail the conversion, or,
 * with `repair: 'repair'`, become `{}` with a note.
 */
export const argumentsObject = (context: Context, m: Message, call: ToolCallPart): Record<string, unknown> => {
  const parsed = parseJson(call.arguments)
  if (parsed !== undefined && isObject(parsed.value)) return parsed.value
  if (context.repair === 'repair') {
    context.notes.push({ kind: 'arguments_replaced', messageId: m.id, toolCallId: call.id })
  } else {
    context.error ??= { kind: 'invalid_arguments', messageId: m.id, toolCallId: call.id, arguments: call.arguments }
  }
  return {}
}
