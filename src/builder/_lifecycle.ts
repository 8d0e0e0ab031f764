/**
 * The assistant lifecycle as pure steps: open a message, merge streamed chunks into its parts,
 * move its tool calls through pending → running → complete | error, and commit it to the history.
 *
 * @module
 */
import { isReasoning, isText, isToolCall, isToolResult, toolResult } from '../message/part-make.ts'
import { type Part, type ReasoningPart, type TextPart, type ToolCallPart } from '../message/part-model.ts'
import { hasRole, textContent } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import type { BuilderEvent, BuilderState, LifecycleInput, StepResult } from './types.ts'
import { claimId, stamp, touch, unchanged, warn } from './_step-kit.ts'

// --- helpers ---

const NO_CURRENT = 'no assistant message is open (call startAssistant first)'

type Of<T extends LifecycleInput['type']> = Extract<LifecycleInput, { readonly type: T }>

export const replaceAt = <A>(as: ReadonlyArray<A>, i: number, a: A): ReadonlyArray<A> => {
  const out = as.slice()
  out[i] = a
  return out
}

const insertAt = <A>(as: ReadonlyArray<A>, i: number, a: A): ReadonlyArray<A> => [...as.slice(0, i), a, ...as.slice(i)]

/** The current message with part `index` replaced (or appended when `index` is its length). */
const putPart = (state: BuilderState, current: Message, index: number, part: Part, at: string | undefined, delta?: string): StepResult => {
  const added = index === current.parts.length
  const parts = added ? [...current.parts, part] : replaceAt(current.parts, index, part)
  const event: BuilderEvent = added
    ? { type: 'messagePartAdded', messageId: current.id, index, part }
    : { type: 'messagePartUpdated', messageId: current.id, index, part, ...(delta === undefined ? {} : { delta }) }
  return { state: { ...state, current: touch({ ...current, parts }, at) }, events: [event] }
}

const callIndex = (parts: ReadonlyArray<Part>, id: string): number => parts.findIndex((p) => isToolCall(p) && p.id === id)

/** Where a tool call lives: in the current message, or in the latest history message holding it. */
export type CallSite =
  | { readonly where: 'current'; readonly message: Message; readonly part: number }
  | { readonly where: 'history'; readonly message: Message; readonly index: number; readonly part: number }

export const findCall = (state: BuilderState, id: string): CallSite | undefined => {
  if (state.current !== undefined) {
    const part = callIndex(state.current.parts, id)
    if (part >= 0) return { where: 'current', message: state.current, part }
  }
  for (let index = state.history.length - 1; index >= 0; index--) {
    const message = state.history[index]
    if (message === undefined || !hasRole('assistant')(message)) continue
    const part = callIndex(message.parts, id)
    if (part >= 0) return { where: 'history', message, index, part }
  }
  return undefined
}

/** Replaces a tool call where it lives, with the matching event. */
export const putCall = (state: BuilderState, site: CallSite, call: ToolCallPart, at: string | undefined): StepResult => {
  if (site.where === 'current') return putPart(state, site.message, site.part, call, at)
  const message = touch({ ...site.message, parts: replaceAt(site.message.parts, site.part, call) }, at)
  return {
    state: { ...state, history: replaceAt(state.history, site.index, message) },
    events: [{ type: 'messageUpdated', message, index: site.index }],
  }
}

/** Whether a message is a tool message answering the call `id`. */
const answers = (id: string) => (m: Message): boolean => hasRole('tool')(m) && m.parts.some((p) => isToolResult(p) && p.toolCallId === id)

/** Where the result of a call is recorded: queued for the open message, or in the history. */
export type ResultSite = { readonly where: 'results' | 'history'; readonly index: number }

const lastIndex = (ms: Messages, from: number, ok: (m: Message) => boolean): number => {
  for (let i = ms.length - 1; i >= from; i--) if (ok(ms[i] as Message)) return i
  return -1
}

/**
 * Finds the recorded result of the call `id`. A result follows its call, so only the messages
 * after the call are searched: the queue for a call of the open message, the history after the
 * message holding it otherwise (everything, for a call that is nowhere).
 */
export const findResult = (state: BuilderState, id: string, site: CallSite | undefined): ResultSite | undefined => {
  const ok = answers(id)
  if (site === undefined || site.where === 'current') {
    const q = state.results.findIndex(ok)
    if (q >= 0) return { where: 'results', index: q }
    if (site !== undefined) return undefined
  }
  const h = lastIndex(state.history, site === undefined ? 0 : site.index + 1, ok)
  return h >= 0 ? { where: 'history', index: h } : undefined
}

/** Past the assistant message at `index` and the tool messages right after it. */
const afterResults = (history: Messages, index: number): number => {
  let j = index + 1
  while (j < history.length && history[j] !== undefined && hasRole('tool')(history[j] as Message)) j++
  return j
}

// --- steps ---

const startAssistant = (state: BuilderState, input: Of<'startAssistant'>): StepResult => {
  const closing = state.current === undefined ? undefined : finalizeAssistant(state, { type: 'finalizeAssistant', ...atOf(input) })
  const base = closing?.state ?? state
  const [id, next] = claimId(base, input.id)
  const message: Message = {
    id,
    role: 'assistant',
    kind: 'normal',
    parts: [],
    ...(input.model === undefined ? {} : { model: input.model }),
    ...(input.provider === undefined ? {} : { provider: input.provider }),
    ...stamp(input.at),
  }
  const events: BuilderEvent[] = []
  if (closing !== undefined) {
    events.push({ type: 'warning', cause: 'startAssistant', detail: 'an assistant message was still open: it was finalized first' })
    events.push(...closing.events)
  }
  events.push({ type: 'messageStarted', message })
  return { state: { ...next, current: message }, events }
}

const atOf = (input: { readonly at?: string }): { readonly at?: string } => (input.at === undefined ? {} : { at: input.at })

/** Merges a chunk into the last part when `mergeable` accepts it, or adds `fresh(chunk)`. */
const appendChunk = (
  state: BuilderState,
  input: Of<'appendContent'> | Of<'appendThinking'>,
  mergeable: (p: Part | undefined) => p is TextPart | ReasoningPart,
  fresh: (text: string) => Part,
): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  if (input.text === '') return unchanged(state)
  const last = current.parts[current.parts.length - 1]
  return mergeable(last)
    ? putPart(state, current, current.parts.length - 1, { ...last, text: last.text + input.text }, input.at, input.text)
    : putPart(state, current, current.parts.length, fresh(input.text), input.at)
}

const isTextPart = (p: Part | undefined): p is TextPart => p !== undefined && isText(p)

/** An open reasoning block: not redacted, and not closed by a signature. */
const isOpenReasoning = (p: Part | undefined): p is ReasoningPart => p !== undefined && isReasoning(p) && p.redacted !== true && p.signature === undefined

const setThinkingSignature = (state: BuilderState, input: Of<'setThinkingSignature'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  const i = current.parts.length - 1
  const last = current.parts[i]
  // The signature closes the reasoning block being streamed. A block that streamed no text (or whose
  // text part is already closed) gets a reasoning part of its own, so a signature never lands on an
  // earlier block and is never lost.
  if (isOpenReasoning(last)) return putPart(state, current, i, { ...last, signature: input.signature }, input.at)
  return putPart(state, current, current.parts.length, { type: 'reasoning', text: '', signature: input.signature }, input.at)
}

const addRedactedThinking = (state: BuilderState, input: Of<'addRedactedThinking'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  return putPart(state, current, current.parts.length, { type: 'reasoning', text: input.data, redacted: true }, input.at)
}

const addPart = (state: BuilderState, input: Of<'addPart'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  return putPart(state, current, current.parts.length, input.part, input.at)
}

/** A part that can carry provider fields. */
type Fielded = Extract<Part, { readonly type: 'text' | 'reasoning' | 'image' | 'file' | 'tool_call' | 'tool_result' }>
const FIELDED: ReadonlySet<string> = new Set(['text', 'reasoning', 'image', 'file', 'tool_call', 'tool_result'])
const isFielded = (p: Part | undefined): p is Fielded => p !== undefined && FIELDED.has(p.type)

const setPartFields = (state: BuilderState, input: Of<'setPartFields'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  const i = current.parts.length - 1
  const last = current.parts[i]
  if (!isFielded(last)) return warn(state, input.type, 'the last part cannot carry provider fields')
  const all = last.providerFields ?? {}
  return putPart(state, current, i, { ...last, providerFields: { ...all, [input.provider]: { ...all[input.provider], ...input.fields } } }, input.at)
}

const addToolCall = (state: BuilderState, input: Of<'addToolCall'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  const i = callIndex(current.parts, input.id)
  const existing = current.parts[i]
  if (existing !== undefined && isToolCall(existing)) {
    const call: ToolCallPart = { ...existing, name: input.name, arguments: input.arguments ?? existing.arguments }
    if (call.name === existing.name && call.arguments === existing.arguments) return unchanged(state)
    return putPart(state, current, i, call, input.at)
  }
  const call: ToolCallPart = { type: 'tool_call', id: input.id, name: input.name, arguments: input.arguments ?? '', status: 'pending' }
  return putPart(state, current, current.parts.length, call, input.at)
}

const appendToolCallArguments = (state: BuilderState, input: Of<'appendToolCallArguments'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  const i = callIndex(current.parts, input.id)
  const call = current.parts[i]
  if (call === undefined || !isToolCall(call)) return warn(state, input.type, `the current message has no tool call "${input.id}"`)
  if (call.status !== 'pending') return warn(state, input.type, `tool call "${input.id}" is ${call.status}: its arguments are final`)
  if (input.fragment === '') return unchanged(state)
  return putPart(state, current, i, { ...call, arguments: call.arguments + input.fragment }, input.at, input.fragment)
}

const startToolCall = (state: BuilderState, input: Of<'startToolCall'>): StepResult => {
  const site = findCall(state, input.id)
  const call = site?.message.parts[site.part]
  if (site === undefined || call === undefined || !isToolCall(call)) return warn(state, input.type, `no tool call "${input.id}"`)
  if (call.status === 'running') return unchanged(state)
  if (call.status !== 'pending') return warn(state, input.type, `tool call "${input.id}" is ${call.status}, not pending`)
  return putCall(state, site, { ...call, status: 'running' }, input.at)
}

/**
 * Finishes a call and records its result as a tool message: queued after the current message
 * when the call is in it, else inserted after the assistant message holding it (and the results
 * already there). No second result is recorded for a call that has one.
 */
const completeToolCall = (state: BuilderState, input: Of<'completeToolCall'>): StepResult => {
  const site = findCall(state, input.id)
  const call = site?.message.parts[site.part]
  if (site === undefined || call === undefined || !isToolCall(call)) return warn(state, input.type, `no tool call "${input.id}"`)
  if (call.status === 'complete' || call.status === 'error') {
    return warn(state, input.type, `tool call "${input.id}" is ${call.status} already`)
  }
  const updated = putCall(state, site, { ...call, status: input.error === undefined ? 'complete' : 'error' }, input.at)
  if (findResult(updated.state, input.id, site) !== undefined) return updated
  const [id, next] = claimId(updated.state, input.resultId)
  const content = input.error === undefined ? input.result : input.result === '' ? input.error : `${input.error}\n\n${input.result}`
  const result: Message = {
    id,
    role: 'tool',
    kind: 'normal',
    parts: [toolResult({ toolCallId: input.id, name: call.name, content, isError: input.error !== undefined })],
    ...stamp(input.at),
  }
  if (site.where === 'current') return { state: { ...next, results: [...next.results, result] }, events: updated.events }
  const index = afterResults(next.history, site.index)
  return {
    state: { ...next, history: insertAt(next.history, index, result) },
    events: [...updated.events, { type: 'messageAdded', message: result, index }],
  }
}

const finish = (state: BuilderState, input: Of<'finish'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  const i = current.parts.findIndex((p) => p.type === 'finish')
  const existing = current.parts[i]
  if (existing !== undefined && existing.type === 'finish' && existing.reason === input.reason) return unchanged(state)
  return putPart(state, current, i < 0 ? current.parts.length : i, { type: 'finish', reason: input.reason }, input.at)
}

const setError = (state: BuilderState, input: Of<'setError'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  return {
    state: { ...state, current: touch({ ...current, error: input.error }, input.at) },
    events: [{ type: 'messageErrored', messageId: current.id, error: input.error }],
  }
}

/** A call whose arguments never arrived is given `{}`, so that the committed message is valid JSON throughout. */
const closeArguments = (parts: ReadonlyArray<Part>): ReadonlyArray<Part> =>
  parts.some((p) => isToolCall(p) && p.arguments === '') ? parts.map((p) => (isToolCall(p) && p.arguments === '' ? { ...p, arguments: '{}' } : p)) : parts

const finalizeAssistant = (state: BuilderState, input: Of<'finalizeAssistant'>): StepResult => {
  const current = state.current
  if (current === undefined) return warn(state, input.type, NO_CURRENT)
  const parts = closeArguments(current.parts)
  const message = touch({ ...current, parts, ...(input.tokens === undefined ? {} : { tokens: input.tokens }) }, input.at)
  const index = state.history.length
  const history = [...state.history, message, ...state.results]
  const events: BuilderEvent[] = [{ type: 'messageFinalized', message, index, text: textContent(message) }]
  state.results.forEach((result, k) => events.push({ type: 'messageAdded', message: result, index: index + 1 + k }))
  const { current: _closed, ...rest } = state
  return { state: { ...rest, history, results: [] }, events }
}

// --- step ---

/**
 * One step of the assistant lifecycle. A lifecycle input that needs an open message, called with
 * none, is a no-op with a `warning` event; so is any input that names a tool call that is not there.
 */
export const stepLifecycle = (state: BuilderState, input: LifecycleInput): StepResult => {
  switch (input.type) {
    case 'startAssistant':
      return startAssistant(state, input)
    case 'appendContent':
      return appendChunk(state, input, isTextPart, (text) => ({ type: 'text', text }))
    case 'appendThinking':
      return appendChunk(state, input, isOpenReasoning, (text) => ({ type: 'reasoning', text }))
    case 'setThinkingSignature':
      return setThinkingSignature(state, input)
    case 'addRedactedThinking':
      return addRedactedThinking(state, input)
    case 'addPart':
      return addPart(state, input)
    case 'setPartFields':
      return setPartFields(state, input)
    case 'addToolCall':
      return addToolCall(state, input)
    case 'appendToolCallArguments':
      return appendToolCallArguments(state, input)
    case 'startToolCall':
      return startToolCall(state, input)
    case 'completeToolCall':
      return completeToolCall(state, input)
    case 'finish':
      return finish(state, input)
    case 'setError':
      return setError(state, input)
    case 'finalizeAssistant':
      return finalizeAssistant(state, input)
  }
}
