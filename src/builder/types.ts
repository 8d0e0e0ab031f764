/**
 * The conversation builder's data: the inputs it accepts, the events it emits and the state it
 * folds them into. Everything here is plain, immutable, structured-clonable data, so a builder can
 * be replayed from its inputs, mirrored from its events, and moved across a thread boundary.
 *
 * @module
 */
import type { ImagePart, Part } from '../message/part-model.ts'
import type { Message, Messages, Tokens } from '../message/message.ts'
import type { Role } from '../message/role.ts'
import type { PruneOptions, PruneReport } from '../history/prune-options.ts'

// --- inputs ---

/**
 * An input that drives the assistant message being streamed (the "current" message). Each may
 * carry `at`, an ISO-8601 time to stamp on what it changes: the pure core never reads the clock,
 * so the shell fills `at` in and a replay of the stamped inputs is exact.
 *
 * - `startAssistant` opens the current message (`id`, `model`, `provider` optional);
 * - `appendContent` / `appendThinking` merge a streamed chunk into the last text / reasoning part;
 * - `setThinkingSignature` signs the reasoning part being streamed (the last part, open), which
 *   closes it; with no such part it adds an empty reasoning part carrying the signature;
 * - `addRedactedThinking` adds an encrypted reasoning part (`redacted: true`);
 * - `addPart` adds a part as it is: a provider's block that no streamed input builds (a server
 *   tool call or result, a compaction block, …, as a provider part) (since 0.2.0);
 * - `setPartFields` sets a provider's fields (citations, …) on the last part, the one being
 *   streamed, merged into its `providerFields` (since 0.2.0);
 * - `addToolCall` adds a pending call (or updates the call with that id);
 * - `appendToolCallArguments` appends a streamed JSON fragment to a pending call's raw arguments;
 * - `startToolCall` moves a call from pending to running;
 * - `completeToolCall` finishes a call (`error` makes it an error) and records its result;
 * - `finish` sets the finish part (the stop reason); `setError` sets the message's `error`;
 * - `finalizeAssistant` commits the current message (with `tokens`, when known) to the history.
 *
 * @since 0.1.0
 * @category model
 */
export type LifecycleInput =
  | { readonly type: 'startAssistant'; readonly id?: string; readonly model?: string; readonly provider?: string; readonly at?: string }
  | { readonly type: 'appendContent'; readonly text: string; readonly at?: string }
  | { readonly type: 'appendThinking'; readonly text: string; readonly at?: string }
  | { readonly type: 'setThinkingSignature'; readonly signature: string; readonly at?: string }
  | { readonly type: 'addRedactedThinking'; readonly data: string; readonly at?: string }
  | { readonly type: 'addPart'; readonly part: Part; readonly at?: string }
  | { readonly type: 'setPartFields'; readonly provider: string; readonly fields: Readonly<Record<string, unknown>>; readonly at?: string }
  | { readonly type: 'addToolCall'; readonly id: string; readonly name: string; readonly arguments?: string; readonly at?: string }
  | { readonly type: 'appendToolCallArguments'; readonly id: string; readonly fragment: string; readonly at?: string }
  | { readonly type: 'startToolCall'; readonly id: string; readonly at?: string }
  | {
    readonly type: 'completeToolCall'
    readonly id: string
    readonly result: string
    readonly error?: string
    readonly resultId?: string
    readonly at?: string
  }
  | { readonly type: 'finish'; readonly reason: string; readonly at?: string }
  | { readonly type: 'setError'; readonly error: string; readonly at?: string }
  | { readonly type: 'finalizeAssistant'; readonly tokens?: Tokens; readonly at?: string }

/**
 * The fields of a tool result input: the tool's name, the call it answers, the result text,
 * whether it is an error (default: `false`, and `true` for an ephemeral result), a token estimate,
 * an id and a time.
 *
 * @since 0.1.0
 * @category model
 */
export type ToolResultFields = {
  readonly toolName: string
  readonly toolCallId: string
  readonly result: string
  readonly isError?: boolean
  readonly estimatedTokens?: number
  readonly id?: string
  readonly at?: string
}

/**
 * An input that edits the committed history. Inputs that create a message take an optional `id`
 * (else the builder's next id) and `at`; `estimatedTokens` (when above 0) becomes the message's
 * token total. Every input is plain data except `pruneToolResults`, which carries the pruning
 * options and so any `estimate`, `count` or `placeholder` function they name.
 *
 * @since 0.1.0
 * @category model
 */
export type HistoryInput =
  | {
    readonly type: 'addUserMessage'
    readonly text: string
    readonly images?: ReadonlyArray<ImagePart>
    readonly sender?: string
    readonly estimatedTokens?: number
    readonly id?: string
    readonly at?: string
  }
  | { readonly type: 'addAssistantMessage'; readonly message: Message }
  | ({ readonly type: 'addToolResult' } & ToolResultFields)
  | ({ readonly type: 'addEphemeralToolResult' } & ToolResultFields)
  | { readonly type: 'addDisplayMessage'; readonly role: Role; readonly text: string; readonly id?: string; readonly at?: string }
  | { readonly type: 'addBookmark'; readonly label: string; readonly id?: string; readonly at?: string }
  | { readonly type: 'addMetadata'; readonly data: Readonly<Record<string, unknown>>; readonly id?: string; readonly at?: string }
  | {
    readonly type: 'injectMessage'
    readonly role: Role
    readonly text: string
    readonly estimatedTokens?: number
    readonly id?: string
    readonly at?: string
  }
  | { readonly type: 'updateThinking'; readonly index: number; readonly thinking: string; readonly at?: string }
  | { readonly type: 'updateSystemPrompt'; readonly prompt: string; readonly estimatedTokens?: number; readonly id?: string; readonly at?: string }
  | { readonly type: 'backfillToolTokens'; readonly delta: number }
  | { readonly type: 'clear' }
  | { readonly type: 'dropN'; readonly n: number }
  | { readonly type: 'restore'; readonly messages: Messages }
  | { readonly type: 'deduplicateSystemMessages' }
  | { readonly type: 'ejectEphemeralMessages' }
  | { readonly type: 'ejectSyntheticMessages' }
  | { readonly type: 'trimDuplicateSynthetics' }
  | { readonly type: 'pruneEmptyAssistantMessages' }
  | ({ readonly type: 'pruneToolResults' } & PruneOptions)
  | {
    readonly type: 'rebuildAfterCompaction'
    readonly summary: string
    readonly summaryTokens: number
    readonly preserved: Messages
  }

/**
 * Everything a builder accepts: the assistant lifecycle and the history edits.
 *
 * @example
 * import type { BuilderInput } from 'chatfold/builder'
 * const stream: ReadonlyArray<BuilderInput> = [
 *   { type: 'startAssistant', model: 'gpt-5' },
 *   { type: 'appendContent', text: 'Hel' },
 *   { type: 'appendContent', text: 'lo' },
 *   { type: 'finish', reason: 'end_turn' },
 *   { type: 'finalizeAssistant' },
 * ]
 *
 * @since 0.1.0
 * @category model
 */
export type BuilderInput = LifecycleInput | HistoryInput

// --- events ---

/**
 * What a builder reports, as plain data:
 *
 * - `messageStarted`: an assistant message was opened (`message` has no parts yet);
 * - `messagePartAdded` / `messagePartUpdated`: a part of the current message at `index` was
 *   added or changed; `delta` is the appended text when a chunk was merged;
 * - `messageErrored`: the current message's `error` was set;
 * - `messageFinalized`: the current message was committed at `index`, with its merged `text`;
 * - `messageAdded`: a message was inserted into the history at `index`;
 * - `syntheticInjected`: a synthetic message was inserted at `index`;
 * - `messageUpdated`: the history message at `index` was replaced by `message`;
 * - `historyChanged`: a bulk edit (`cause`) left the history `history`;
 * - `toolResultsPruned`: what `pruneToolResults` freed (sent just before its `historyChanged`);
 * - `historyCompacted`: the messages `rebuildAfterCompaction` took out of the history, in order
 *   (sent just before its `historyChanged`), for the caller to keep or drop;
 * - `warning`: `cause` was ignored, for the reason `detail` (for instance a lifecycle input with
 *   no open assistant message). A warning never changes the state.
 *
 * `messageFinalized`, `messageAdded`, `syntheticInjected`, `messageUpdated` and `historyChanged`
 * together describe every change to the history: `replayBuilderEvents` rebuilds it from them.
 *
 * @since 0.1.0
 * @category model
 */
export type BuilderEvent =
  | { readonly type: 'messageStarted'; readonly message: Message }
  | { readonly type: 'messagePartAdded'; readonly messageId: string; readonly index: number; readonly part: Part }
  | { readonly type: 'messagePartUpdated'; readonly messageId: string; readonly index: number; readonly part: Part; readonly delta?: string }
  | { readonly type: 'messageErrored'; readonly messageId: string; readonly error: string }
  | { readonly type: 'messageFinalized'; readonly message: Message; readonly index: number; readonly text: string }
  | { readonly type: 'messageAdded'; readonly message: Message; readonly index: number }
  | { readonly type: 'syntheticInjected'; readonly message: Message; readonly index: number }
  | { readonly type: 'messageUpdated'; readonly message: Message; readonly index: number }
  | { readonly type: 'historyChanged'; readonly cause: BuilderInput['type']; readonly history: Messages }
  | { readonly type: 'toolResultsPruned'; readonly report: PruneReport }
  | { readonly type: 'historyCompacted'; readonly archive: Messages }
  | { readonly type: 'warning'; readonly cause: BuilderInput['type']; readonly detail: string }

// --- state ---

/**
 * A builder's state: the committed `history`, the assistant message being streamed (`current`,
 * absent between messages), the tool-result messages that `completeToolCall` recorded for it
 * (`results`, committed right after it), and the id counter (`idPrefix` + `seq`).
 *
 * @since 0.1.0
 * @category model
 */
export type BuilderState = {
  readonly history: Messages
  readonly current?: Message
  readonly results: Messages
  readonly idPrefix: string
  readonly seq: number
}

/**
 * The result of one step: the new state and what happened, in order.
 *
 * @since 0.1.0
 * @category model
 */
export type StepResult = { readonly state: BuilderState; readonly events: ReadonlyArray<BuilderEvent> }
