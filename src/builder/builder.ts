/**
 * The builder's shell: holds a state, stamps each input with the time, an
 * estimated token count where one is missing, and sends what happened to a sink. Every method is
 * one `step`; the history it hands out is an immutable snapshot.
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import type { ImagePart, Part } from '../message/part-model.ts'
import { reasoningText, textContent } from '../message/accessors.ts'
import { type Message, type Messages, type Tokens } from '../message/message.ts'
import type { Role } from '../message/role.ts'
import type { PruneOptions } from '../history/prune-options.ts'
import type { Estimator } from '../tokens/message-tokens.ts'
import { smartHeuristic } from '../tokens/heuristic.ts'
import { newId, nowIso } from '../internal/id.ts'
import type { BuilderEvent, BuilderInput, BuilderState } from './types.ts'
import { makeBuilderState } from './state.ts'
import { nextId } from './_step-kit.ts'
import { systemText, type Turn, turns } from './turns.ts'
import { step } from './step.ts'

// --- model ---

/**
 * How a builder starts, all optional:
 *
 * - `sink`: receives every event, in order, after the state has changed (re-entrant calls from
 *   the sink are queued, so events always arrive in the order they happened; a sink that throws
 *   loses the rest of that call's events, and the error reaches the caller);
 * - `systemPrompt` and `systemTokens`: the first message, and its precomputed token count;
 * - `estimate`: the token estimator for inputs that carry no estimate, `pruneToolResults` included
 *   (default `smartHeuristic`);
 * - `idPrefix`: the prefix of generated ids (default: a fresh random one, then a counter);
 * - `clock`: the time stamped on inputs (default: now, as ISO-8601);
 * - `record`: receives each input as it is applied, stamped, so that `replayBuilderInputs` over the
 *   recorded inputs, from the builder's first `state()`, rebuilds the same history.
 *
 * @since 0.1.0
 * @category builder
 */
export type BuilderOptions = {
  readonly sink?: (event: BuilderEvent) => void
  readonly systemPrompt?: string
  readonly systemTokens?: number
  readonly estimate?: Estimator
  readonly idPrefix?: string
  readonly clock?: () => string
  readonly record?: (input: BuilderInput) => void
}

/** The fields of a tool result, as the builder's methods take them. */
type ToolResultArgs = {
  readonly toolName: string
  readonly toolCallId: string
  readonly result: string
  readonly estimatedTokens?: number
  readonly isError?: boolean
  readonly id?: string
}

/**
 * A conversation builder: one method per input, with same-typed positional arguments turned
 * into named fields. Commands return nothing (what happened goes to
 * the sink; `dispatch` also returns it); queries return snapshots.
 *
 * @since 0.1.0
 * @category builder
 */
export type Builder = {
  /** Applies any input and returns the events it produced (stream assemblers feed inputs here). */
  readonly dispatch: (input: BuilderInput) => ReadonlyArray<BuilderEvent>
  /** The whole state: history, open message, queued results, id counter. */
  readonly state: () => BuilderState
  // adding
  readonly addUserMessage: (fields: {
    readonly text: string
    readonly images?: ReadonlyArray<ImagePart>
    readonly sender?: string
    readonly estimatedTokens?: number
    readonly id?: string
  }) => void
  readonly addAssistantMessage: (message: Message) => void
  readonly addToolResult: (fields: ToolResultArgs) => void
  readonly addEphemeralToolResult: (fields: ToolResultArgs) => void
  readonly addDisplayMessage: (fields: { readonly role: Role; readonly text: string }) => void
  readonly addBookmark: (label: string) => void
  readonly addMetadata: (data: Readonly<Record<string, unknown>>) => void
  readonly injectMessage: (fields: { readonly role: Role; readonly text: string; readonly estimatedTokens?: number }) => void
  // the assistant lifecycle
  readonly startAssistant: (fields?: { readonly id?: string; readonly model?: string; readonly provider?: string }) => void
  readonly appendContent: (text: string) => void
  readonly appendThinking: (text: string) => void
  readonly setThinkingSignature: (signature: string) => void
  readonly addRedactedThinking: (data: string) => void
  readonly addPart: (part: Part) => void
  readonly setPartFields: (fields: { readonly provider: string; readonly fields: Readonly<Record<string, unknown>> }) => void
  readonly addToolCall: (fields: { readonly id: string; readonly name: string; readonly arguments?: string }) => void
  readonly appendToolCallArguments: (fields: { readonly id: string; readonly fragment: string }) => void
  readonly startToolCall: (id: string) => void
  readonly completeToolCall: (fields: { readonly id: string; readonly result: string; readonly error?: string }) => void
  readonly finish: (reason: string) => void
  readonly setError: (error: string) => void
  readonly finalizeAssistant: (fields?: { readonly tokens?: Tokens }) => void
  // updating
  readonly updateThinking: (fields: { readonly index: number; readonly thinking: string }) => void
  readonly updateSystemPrompt: (prompt: string) => void
  // queries
  readonly systemPrompt: () => string
  readonly history: () => Messages
  readonly current: () => O.Option<Message>
  readonly len: () => number
  readonly nextId: () => string
  readonly turns: () => ReadonlyArray<Turn>
  readonly estimate: (text: string) => number
  // bulk edits
  readonly backfillToolTokens: (delta: number) => void
  readonly clear: () => void
  readonly dropN: (n: number) => void
  readonly restore: (messages: Messages) => void
  readonly deduplicateSystemMessages: () => void
  readonly ejectEphemeralMessages: () => void
  readonly ejectSyntheticMessages: () => void
  readonly trimDuplicateSynthetics: () => void
  readonly pruneEmptyAssistantMessages: () => void
  readonly pruneToolResults: (options: PruneOptions) => void
  /** Returns the archive: the messages the compaction took out of the history, in order. */
  readonly rebuildAfterCompaction: (fields: { readonly summary: string; readonly summaryTokens?: number; readonly preserved: Messages }) => Messages
}

// --- stamping ---

/** Inputs that take no time stamp. */
const UNTIMED: ReadonlySet<BuilderInput['type']> = new Set<BuilderInput['type']>([
  'addAssistantMessage',
  'backfillToolTokens',
  'clear',
  'dropN',
  'restore',
  'deduplicateSystemMessages',
  'ejectEphemeralMessages',
  'ejectSyntheticMessages',
  'trimDuplicateSynthetics',
  'pruneEmptyAssistantMessages',
  'pruneToolResults',
  'rebuildAfterCompaction',
])

const positive = (n: number | undefined): n is number => n !== undefined && Number.isFinite(n) && n > 0

/** The text an input's token estimate is made from, for inputs that take an estimate. */
const estimatedText = (input: BuilderInput): string | undefined => {
  switch (input.type) {
    case 'addUserMessage':
    case 'injectMessage':
      return positive(input.estimatedTokens) ? undefined : input.text
    case 'addToolResult':
    case 'addEphemeralToolResult':
      return positive(input.estimatedTokens) ? undefined : input.result
    case 'updateSystemPrompt':
      return positive(input.estimatedTokens) ? undefined : input.prompt
    default:
      return undefined
  }
}

/**
 * Assistant tokens from a reported total: the content and thinking shares estimated, the rest
 * (tool-call JSON, special tokens) the exact remainder.
 */
const breakdown = (tokens: Tokens, current: Message | undefined, estimate: Estimator): Tokens => {
  if (current === undefined || tokens.content !== undefined || tokens.thinking !== undefined) return tokens
  const content = estimate(textContent(current))
  const thinking = estimate(reasoningText(current))
  return { ...tokens, content, thinking, tools: tokens.tools ?? Math.max(0, tokens.total - content - thinking) }
}

// --- constructors ---

/**
 * Makes a builder. Every method applies one input with `step`: misuse is
 * a `warning` event, never an exception.
 *
 * @example
 * import { createBuilder, type BuilderEvent } from 'chatfold/builder'
 * const events: BuilderEvent[] = []
 * const b = createBuilder({ systemPrompt: 'You are terse.', sink: (e) => events.push(e) })
 * b.addUserMessage({ text: 'List the files.' })
 * b.startAssistant({ model: 'claude-sonnet-4-5' })
 * b.appendContent('Listing')
 * b.addToolCall({ id: 'c1', name: 'ls', arguments: '{"path":"."}' })
 * b.startToolCall('c1')
 * b.completeToolCall({ id: 'c1', result: 'README.md\nsrc' })
 * b.finalizeAssistant()
 * b.history().map((m) => m.role) // ['system', 'user', 'assistant', 'tool']
 *
 * @since 0.1.0
 * @category builder
 */
export const createBuilder = (options: BuilderOptions = {}): Builder => {
  const estimate = options.estimate ?? smartHeuristic
  const clock = options.clock ?? nowIso
  let state = makeBuilderState({
    systemPrompt: options.systemPrompt ?? '',
    idPrefix: options.idPrefix ?? `${newId()}-`,
    at: clock(),
    ...(options.systemTokens === undefined ? {} : { systemTokens: options.systemTokens }),
  })
  const queue: BuilderEvent[] = []
  let emitting = false

  const emit = (events: ReadonlyArray<BuilderEvent>): void => {
    const sink = options.sink
    if (sink === undefined || events.length === 0) return
    for (const e of events) queue.push(e)
    if (emitting) return
    emitting = true
    try {
      for (let e = queue.shift(); e !== undefined; e = queue.shift()) sink(e)
    } finally {
      emitting = false
      queue.length = 0
    }
  }

  const stamp = (input: BuilderInput): BuilderInput => {
    let out = input
    if (!UNTIMED.has(input.type) && (input as { readonly at?: string }).at === undefined) out = { ...out, at: clock() } as BuilderInput
    const text = estimatedText(input)
    if (text !== undefined) out = { ...out, estimatedTokens: estimate(text) } as BuilderInput
    // a prune counts with the builder's estimator, as everything else the builder estimates
    if (input.type === 'pruneToolResults' && input.estimate === undefined) out = { ...out, estimate } as BuilderInput
    if (input.type === 'rebuildAfterCompaction' && !positive(input.summaryTokens)) out = { ...out, summaryTokens: estimate(input.summary) } as BuilderInput
    if (input.type === 'finalizeAssistant' && input.tokens !== undefined) {
      out = { ...out, tokens: breakdown(input.tokens, state.current, estimate) } as BuilderInput
    }
    return out
  }

  const dispatch = (input: BuilderInput): ReadonlyArray<BuilderEvent> => {
    const stamped = stamp(input)
    const r = step(state, stamped)
    state = r.state
    options.record?.(stamped)
    emit(r.events)
    return r.events
  }
  const run = (input: BuilderInput): void => void dispatch(input)
  const opt = <K extends string, V>(key: K, v: V | undefined): { [P in K]?: V } => (v === undefined ? {} : ({ [key]: v } as { [P in K]: V }))

  return {
    dispatch,
    state: () => state,
    addUserMessage: (f) => run({ type: 'addUserMessage', ...f }),
    addAssistantMessage: (message) => run({ type: 'addAssistantMessage', message }),
    addToolResult: (f) => run({ type: 'addToolResult', ...f }),
    addEphemeralToolResult: (f) => run({ type: 'addEphemeralToolResult', ...f }),
    addDisplayMessage: (f) => run({ type: 'addDisplayMessage', ...f }),
    addBookmark: (label) => run({ type: 'addBookmark', label }),
    addMetadata: (data) => run({ type: 'addMetadata', data }),
    injectMessage: (f) => run({ type: 'injectMessage', ...f }),
    startAssistant: (f = {}) => run({ type: 'startAssistant', ...f }),
    appendContent: (text) => run({ type: 'appendContent', text }),
    appendThinking: (text) => run({ type: 'appendThinking', text }),
    setThinkingSignature: (signature) => run({ type: 'setThinkingSignature', signature }),
    addRedactedThinking: (data) => run({ type: 'addRedactedThinking', data }),
    addPart: (part) => run({ type: 'addPart', part }),
    setPartFields: (f) => run({ type: 'setPartFields', ...f }),
    addToolCall: (f) => run({ type: 'addToolCall', ...f }),
    appendToolCallArguments: (f) => run({ type: 'appendToolCallArguments', ...f }),
    startToolCall: (id) => run({ type: 'startToolCall', id }),
    completeToolCall: (f) => run({ type: 'completeToolCall', ...f }),
    finish: (reason) => run({ type: 'finish', reason }),
    setError: (error) => run({ type: 'setError', error }),
    finalizeAssistant: (f = {}) => run({ type: 'finalizeAssistant', ...opt('tokens', f.tokens) }),
    updateThinking: (f) => run({ type: 'updateThinking', ...f }),
    updateSystemPrompt: (prompt) => run({ type: 'updateSystemPrompt', prompt }),
    systemPrompt: () => systemText(state.history),
    history: () => state.history,
    current: () => O.fromNullable(state.current),
    len: () => state.history.length,
    nextId: () => nextId(state),
    turns: () => turns(state.history),
    estimate: (text) => estimate(text),
    backfillToolTokens: (delta) => run({ type: 'backfillToolTokens', delta }),
    clear: () => run({ type: 'clear' }),
    dropN: (n) => run({ type: 'dropN', n }),
    restore: (messages) => run({ type: 'restore', messages }),
    deduplicateSystemMessages: () => run({ type: 'deduplicateSystemMessages' }),
    ejectEphemeralMessages: () => run({ type: 'ejectEphemeralMessages' }),
    ejectSyntheticMessages: () => run({ type: 'ejectSyntheticMessages' }),
    trimDuplicateSynthetics: () => run({ type: 'trimDuplicateSynthetics' }),
    pruneEmptyAssistantMessages: () => run({ type: 'pruneEmptyAssistantMessages' }),
    pruneToolResults: (options) => run({ type: 'pruneToolResults', ...options }),
    rebuildAfterCompaction: (f) => {
      const events = dispatch({ type: 'rebuildAfterCompaction', summary: f.summary, summaryTokens: f.summaryTokens ?? 0, preserved: f.preserved })
      const compacted = events.find((e) => e.type === 'historyCompacted')
      return compacted?.type === 'historyCompacted' ? compacted.archive : []
    },
  }
}
