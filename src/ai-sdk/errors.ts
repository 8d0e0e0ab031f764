/**
 * The errors of the AI SDK drop-ins, each with a `code` that says why, as `EngineError` does for
 * the engine: `ContextError` from `contextMiddleware` and `contextPrepareStep`, `UIMessageStoreError`
 * from `uiMessageStore`. A failure of the caller's own `fetch` (the network) is passed on as it came.
 *
 * @module
 */

/**
 * Why `contextMiddleware` or `contextPrepareStep` could not keep a request within the window:
 * - `unreadable`: the framework's messages could not be read (a field chatfold has no place for);
 * - `unwritable`: the history that fits could not be written back in the framework's form;
 * - `too-large`: not even the system prompt, a summary and the last request fit.
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type ContextErrorCode = 'unreadable' | 'unwritable' | 'too-large'

import type { CallCostLine } from '../cost/call-cost.ts'

/**
 * The error `contextMiddleware` and `contextPrepareStep` reject a call with; `code` says why, and
 * `calls` what the summariser's model calls made before it cost (a `too-large` compaction that did
 * not fit still paid for them; none otherwise).
 *
 * @example
 * import { ContextError } from 'chatfold/ai-sdk'
 * const e: unknown = new ContextError('too-large', 'Cannot fit the request in the context window: …')
 * e instanceof ContextError && e.code // 'too-large'
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export class ContextError extends Error {
  readonly code: ContextErrorCode
  readonly calls: ReadonlyArray<CallCostLine>
  constructor(code: ContextErrorCode, message: string, options?: { readonly cause?: unknown; readonly calls?: ReadonlyArray<CallCostLine> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ContextError'
    this.code = code
    this.calls = options?.calls ?? []
  }
}

/**
 * Why `uiMessageStore` could not save or load:
 * - `refused`: the store refused a message or a query (an HTTP status other than the one expected,
 *   such as 401 or 413; a message the store's checks reject);
 * - `unreadable`: the store's answer, or a message it holds, could not be read;
 * - `unsavable`: a UI message chatfold cannot keep as it is (a field it has no place for);
 * - `no-id`: a UI message without an id the store can keep (give `toUIMessageStreamResponse` a
 *   `generateMessageId`);
 * - `conflict`: the store holds a different message under the id;
 * - `not-compaction`: `saveCompaction` was given a message that is no compaction.
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export type UIMessageStoreErrorCode = 'refused' | 'unreadable' | 'unsavable' | 'no-id' | 'conflict' | 'not-compaction'

/**
 * The error `uiMessageStore`'s `save`, `load` and `onFinish` reject with; `code` says why, and
 * `status` is the store's HTTP status when it answered one it should not have.
 *
 * @example
 * import { UIMessageStoreError } from 'chatfold/ai-sdk'
 * const e: unknown = new UIMessageStoreError('refused', 'Cannot save message "m1": the store answered 401', { status: 401 })
 * e instanceof UIMessageStoreError && e.status // 401
 *
 * @since 0.1.0
 * @category ai-sdk
 */
export class UIMessageStoreError extends Error {
  readonly code: UIMessageStoreErrorCode
  readonly status: number | undefined
  constructor(code: UIMessageStoreErrorCode, message: string, options?: { readonly cause?: unknown; readonly status?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'UIMessageStoreError'
    this.code = code
    this.status = options?.status
  }
}
