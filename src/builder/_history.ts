/**
 * The history-level builder inputs as pure steps. Each one makes a message and appends it, or
 * hands the history to the history-core or compaction function that does the job.
 *
 * @module
 */
import { isFinished, isReasoning, isToolCall, toolResult } from '../message/part-make.ts'
import { type ImagePart, type Part } from '../message/part-model.ts'
import { hasKind, hasRole } from '../message/accessors.ts'
import { type Kind, type Message, type Messages } from '../message/message.ts'
import type { Role } from '../message/role.ts'
import { append, clear, deduplicateSystem, dropN, pruneEmptyAssistant, trimDuplicateSynthetics } from '../history/edit.ts'
import { forSave, withoutSynthetic } from '../history/views.ts'
import { pruneToolResultsWithReport } from '../history/prune.ts'
import { backfillToolTokens } from '../tokens/usage.ts'
import { rebuildAfterCompaction } from '../compaction/rebuild.ts'
import type { BuilderEvent, BuilderInput, BuilderState, HistoryInput, StepResult } from './types.ts'
import { claimId, stamp, tokenField, touch, unchanged, warn } from './_step-kit.ts'
import { findCall, findResult, putCall, replaceAt } from './_lifecycle.ts'

// --- helpers ---

type Of<T extends HistoryInput['type']> = Extract<HistoryInput, { readonly type: T }>

type NewMessage = {
  readonly role: Role
  readonly kind: Kind
  readonly parts: ReadonlyArray<Part>
  readonly id?: string | undefined
  readonly at?: string | undefined
  readonly estimatedTokens?: number | undefined
  readonly extra?: Partial<Message>
}

/** Makes a message with the next id, a timestamp and a token estimate when there are some. */
const make = (state: BuilderState, spec: NewMessage): readonly [Message, BuilderState] => {
  const [id, next] = claimId(state, spec.id)
  const message: Message = {
    ...spec.extra,
    id,
    role: spec.role,
    kind: spec.kind,
    parts: spec.parts,
    ...stamp(spec.at),
    ...tokenField(spec.estimatedTokens),
  }
  return [message, next]
}

/** Appends a message to the history with `append`, and reports it. */
const added = (state: BuilderState, message: Message, type: 'messageAdded' | 'syntheticInjected' = 'messageAdded'): StepResult => ({
  state: { ...state, history: append([message])(state.history) },
  events: [{ type, message, index: state.history.length }],
})

const text = (value: string): Part => ({ type: 'text', text: value })

/** A bulk edit through a history function: `historyChanged` when it changed something. */
const edited = (state: BuilderState, cause: BuilderInput['type'], edit: (ms: Messages) => Messages): StepResult => {
  const history = edit(state.history)
  if (history === state.history) return unchanged(state)
  return { state: { ...state, history }, events: [{ type: 'historyChanged', cause, history }] }
}

// --- adding ---

const addUserMessage = (state: BuilderState, input: Of<'addUserMessage'>): StepResult => {
  const images: ReadonlyArray<ImagePart> = input.images ?? []
  const parts: ReadonlyArray<Part> = input.text === '' && images.length > 0 ? images : [text(input.text), ...images]
  const [message, next] = make(state, {
    role: 'user',
    kind: 'normal',
    parts,
    id: input.id,
    at: input.at,
    estimatedTokens: input.estimatedTokens,
    ...(input.sender === undefined ? {} : { extra: { sender: input.sender } }),
  })
  return added(next, message)
}

const addAssistantMessage = (state: BuilderState, input: Of<'addAssistantMessage'>): StepResult =>
  input.message.role === 'assistant' ? added(state, input.message) : warn(state, input.type, `the message has role "${input.message.role}", not "assistant"`)

/**
 * Records a tool result. A call has one result: a result for a call that has one replaces it
 * (keeping its place), and a result for a call of the open message waits to be committed right
 * after that message. The call itself, when found unfinished, is marked complete (or error).
 */
const addToolResult = (state: BuilderState, input: Of<'addToolResult'> | Of<'addEphemeralToolResult'>): StepResult => {
  const isError = input.isError ?? input.type === 'addEphemeralToolResult'
  const site = findCall(state, input.toolCallId)
  const recorded = findResult(state, input.toolCallId, site)
  const previous = recorded === undefined ? undefined : (recorded.where === 'results' ? state.results : state.history)[recorded.index]
  const [message, claimed] = make(state, {
    role: 'tool',
    kind: input.type === 'addEphemeralToolResult' ? 'ephemeral' : 'normal',
    parts: [toolResult({ toolCallId: input.toolCallId, name: input.toolName, content: input.result, isError })],
    id: input.id ?? previous?.id,
    at: input.at,
    estimatedTokens: input.estimatedTokens,
  })
  // the call this answers: finished, if it was not yet (marking it moves no message)
  const call = site?.message.parts[site.part]
  const marked = site !== undefined && call !== undefined && isToolCall(call) && !isFinished(call)
    ? putCall(claimed, site, { ...call, status: isError ? 'error' : 'complete' }, input.at)
    : { state: claimed, events: [] }
  const s = marked.state
  if (recorded?.where === 'results') return { state: { ...s, results: replaceAt(s.results, recorded.index, message) }, events: marked.events }
  if (recorded?.where === 'history') {
    return {
      state: { ...s, history: replaceAt(s.history, recorded.index, message) },
      events: [...marked.events, { type: 'messageUpdated', message, index: recorded.index }],
    }
  }
  if (site?.where === 'current') return { state: { ...s, results: [...s.results, message] }, events: marked.events }
  const r = added(s, message)
  return { state: r.state, events: [...marked.events, ...r.events] }
}

const addSimple = (
  state: BuilderState,
  input: Of<'addDisplayMessage'> | Of<'addBookmark'> | Of<'addMetadata'> | Of<'injectMessage'>,
): StepResult => {
  switch (input.type) {
    case 'addDisplayMessage': {
      const [m, next] = make(state, { role: input.role, kind: 'display', parts: [text(input.text)], id: input.id, at: input.at })
      return added(next, m)
    }
    case 'addBookmark': {
      // role user: a bookmark is shown in the conversation (forDisplay drops system messages)
      const [m, next] = make(state, { role: 'user', kind: 'bookmark', parts: [text(input.label)], id: input.id, at: input.at })
      return added(next, m)
    }
    case 'addMetadata': {
      const [m, next] = make(state, { role: 'user', kind: 'metadata', parts: [], id: input.id, at: input.at, extra: { metadata: input.data } })
      return added(next, m)
    }
    case 'injectMessage': {
      const [m, next] = make(state, {
        role: input.role,
        kind: 'synthetic',
        parts: [text(input.text)],
        id: input.id,
        at: input.at,
        estimatedTokens: input.estimatedTokens,
      })
      return added(next, m, 'syntheticInjected')
    }
  }
}

// --- updating ---

/** The parts with their reasoning replaced by one part of `thinking` (or removed, when it is empty). */
const withThinking = (parts: ReadonlyArray<Part>, thinking: string): ReadonlyArray<Part> => {
  const first = parts.findIndex(isReasoning)
  const rest = parts.filter((p) => !isReasoning(p))
  if (thinking === '') return first < 0 ? parts : rest
  const at = first < 0 ? 0 : first
  return [...rest.slice(0, at), { type: 'reasoning', text: thinking }, ...rest.slice(at)]
}

const sameParts = (a: ReadonlyArray<Part>, b: ReadonlyArray<Part>): boolean =>
  a.length === b.length && a.every((p, i) => JSON.stringify(p) === JSON.stringify(b[i]))

const updateThinking = (state: BuilderState, input: Of<'updateThinking'>): StepResult => {
  const m = Number.isInteger(input.index) ? state.history[input.index] : undefined
  if (m === undefined) return warn(state, input.type, `no message at index ${input.index}`)
  const parts = withThinking(m.parts, input.thinking)
  if (sameParts(parts, m.parts)) return unchanged(state)
  const message = touch({ ...m, parts }, input.at)
  return {
    state: { ...state, history: replaceAt(state.history, input.index, message) },
    events: [{ type: 'messageUpdated', message, index: input.index }],
  }
}

const updateSystemPrompt = (state: BuilderState, input: Of<'updateSystemPrompt'>): StepResult => {
  const first = state.history[0]
  if (first !== undefined && hasRole('system')(first) && hasKind('normal')(first)) {
    const { tokens: _stale, ...rest } = first
    const message = touch({ ...rest, parts: [text(input.prompt)], ...tokenField(input.estimatedTokens) }, input.at)
    if (sameParts(message.parts, first.parts) && message.tokens?.total === first.tokens?.total) return unchanged(state)
    return {
      state: { ...state, history: replaceAt(state.history, 0, message) },
      events: [{ type: 'messageUpdated', message, index: 0 }],
    }
  }
  if (input.prompt === '') return unchanged(state)
  const [message, next] = make(state, {
    role: 'system',
    kind: 'normal',
    parts: [text(input.prompt)],
    id: input.id,
    at: input.at,
    estimatedTokens: input.estimatedTokens,
  })
  const history: Messages = [message, ...next.history]
  return { state: { ...next, history }, events: [{ type: 'messageAdded', message, index: 0 }] }
}

// --- bulk edits ---

const restore = (state: BuilderState, input: Of<'restore'>): StepResult => {
  const events: BuilderEvent[] = []
  if (state.current !== undefined) {
    events.push({ type: 'warning', cause: 'restore', detail: `the open assistant message ${state.current.id} was discarded` })
  }
  const { current: _discarded, ...rest } = state
  events.push({ type: 'historyChanged', cause: 'restore', history: input.messages })
  return { state: { ...rest, history: input.messages, results: [] }, events }
}

/** Keeps the system prompt when the history starts with one, and drops everything else. */
const clearHistory = (ms: Messages): Messages => {
  const first = ms[0]
  return first !== undefined && hasRole('system')(first) ? clear(ms) : dropN(ms.length)(ms)
}

/**
 * Prunes old tool results with the history core's `pruneToolResultsWithReport`, and reports what
 * it freed. Tokens are the one definition (`countMessage`) with the input's `estimate`, which the
 * builder fills in with its own estimator, so a builder prunes as the pure function and the
 * engine do with that estimator.
 */
const pruneToolResults = (state: BuilderState, input: Of<'pruneToolResults'>): StepResult => {
  const { type: _, ...options } = input
  const { messages, report } = pruneToolResultsWithReport(options)(state.history)
  if (messages === state.history) return unchanged(state)
  return {
    state: { ...state, history: messages },
    events: [
      { type: 'toolResultsPruned', report },
      { type: 'historyChanged', cause: input.type, history: messages },
    ],
  }
}

/**
 * Replaces the history with its compaction through `rebuildAfterCompaction`: system prompt,
 * summary, preserved messages; what it took out comes back in a `historyCompacted` event.
 */
const rebuild = (state: BuilderState, input: Of<'rebuildAfterCompaction'>): StepResult => {
  const { messages, archive } = rebuildAfterCompaction(input.summary, input.summaryTokens, input.preserved)(state.history)
  return {
    state: { ...state, history: messages },
    events: [
      { type: 'historyCompacted', archive },
      { type: 'historyChanged', cause: input.type, history: messages },
    ],
  }
}

// --- step ---

/** One step of a history-level input. */
export const stepHistory = (state: BuilderState, input: HistoryInput): StepResult => {
  switch (input.type) {
    case 'addUserMessage':
      return addUserMessage(state, input)
    case 'addAssistantMessage':
      return addAssistantMessage(state, input)
    case 'addToolResult':
    case 'addEphemeralToolResult':
      return addToolResult(state, input)
    case 'addDisplayMessage':
    case 'addBookmark':
    case 'addMetadata':
    case 'injectMessage':
      return addSimple(state, input)
    case 'updateThinking':
      return updateThinking(state, input)
    case 'updateSystemPrompt':
      return updateSystemPrompt(state, input)
    case 'backfillToolTokens':
      return edited(state, input.type, backfillToolTokens(input.delta))
    case 'clear':
      return edited(state, input.type, clearHistory)
    case 'dropN':
      return edited(state, input.type, dropN(input.n))
    case 'restore':
      return restore(state, input)
    case 'deduplicateSystemMessages':
      return edited(state, input.type, deduplicateSystem)
    case 'ejectEphemeralMessages':
      return edited(state, input.type, forSave)
    case 'ejectSyntheticMessages':
      return edited(state, input.type, withoutSynthetic)
    case 'trimDuplicateSynthetics':
      return edited(state, input.type, trimDuplicateSynthetics)
    case 'pruneEmptyAssistantMessages':
      return edited(state, input.type, pruneEmptyAssistant)
    case 'pruneToolResults':
      return pruneToolResults(state, input)
    case 'rebuildAfterCompaction':
      return rebuild(state, input)
  }
}
