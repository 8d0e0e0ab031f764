/**
 * What every stream assembler shares: the `StreamAssembler` shape, the readers of loosely typed
 * event fields, and the opening, closing and token bookkeeping of a reply. See `streams.ts`.
 *
 * @module
 */
import type { LifecycleInput } from '../builder/types.ts'
import type { Tokens } from '../message/message.ts'
import { isObject } from '../internal/object.ts'

// --- model ---

/**
 * Turns one provider's streaming events into builder inputs.
 *
 * @example
 * import { anthropicStream, type StreamAssembler } from 'chatfold/adapters'
 * const assembler: StreamAssembler = anthropicStream()
 *
 * @since 0.1.0
 * @category adapters
 */
export type StreamAssembler = {
  /** The builder inputs one streaming event means. */
  readonly push: (event: unknown) => ReadonlyArray<LifecycleInput>
  /** The builder inputs that close the reply when the stream is over (none when it is closed). */
  readonly end: () => ReadonlyArray<LifecycleInput>
}

export const field = (u: unknown, key: string): unknown => (isObject(u) ? u[key] : undefined)
export const str = (u: unknown, key: string): string | undefined => {
  const v = field(u, key)
  return typeof v === 'string' ? v : undefined
}
export const num = (u: unknown, key: string): number | undefined => {
  const v = field(u, key)
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined
}

/** The opening, closing and token bookkeeping every assembler shares. */
export const lifecycle = (provider: string) => {
  let open = false
  let closed = false
  let tokens: Tokens | undefined
  return {
    start: (id: string | undefined, model: string | undefined): LifecycleInput[] => {
      if (open || closed) return []
      open = true
      return [{ type: 'startAssistant', provider, ...(id === undefined ? {} : { id }), ...(model === undefined ? {} : { model }) }]
    },
    /** Opens the reply (without id or model) when an event arrives before the opening one. */
    ensure: (): LifecycleInput[] => {
      if (open || closed) return []
      open = true
      return [{ type: 'startAssistant', provider }]
    },
    tokens: (total: number | undefined, thinking?: number): void => {
      if (total !== undefined) tokens = { total, ...(thinking === undefined ? {} : { thinking }) }
    },
    finalize: (): LifecycleInput[] => {
      if (!open || closed) return []
      closed = true
      return [{ type: 'finalizeAssistant', ...(tokens === undefined ? {} : { tokens }) }]
    },
    get live(): boolean {
      return open && !closed
    },
  }
}
