/**
 * The decoding kit of the `from…` functions on untrusted provider JSON: a reader that collects
 * every issue by path, the codecs they share, and the messages a decoded history or reply is made
 * of (a new message, a reply's assistant message, tool-call statuses settled from the results).
 * Not exported from the package.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, failureFromErrors, prefixFailure } from '../message/failure.ts'
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part } from '../message/part-model.ts'
import { makeMessage, type Message, type MessageFields, type Messages } from '../message/message.ts'
import type { Vendor } from './vocabulary.ts'

/**
 * A collector of decode issues for the `from…` functions: `read` decodes a value at a path and
 * records what is wrong, `fail` records an issue, `done` returns the value or every issue.
 */
export type Reader = {
  readonly read: <A>(codec: t.Decoder<unknown, A>, u: unknown, path: string) => A | undefined
  readonly fail: (path: string, expected: string, actual: unknown) => undefined
  readonly done: <A>(a: A) => E.Either<DecodeFailure, A>
}

/** A new reader. */
export const reader = (): Reader => {
  const issues: DecodeIssue[] = []
  return {
    read: (codec, u, path) => {
      const r = codec.decode(u)
      if (E.isRight(r)) return r.right
      issues.push(...prefixFailure(path)(failureFromErrors(r.left)))
      return undefined
    },
    fail: (path, expected, actual) => {
      issues.push({ path, expected, actual })
      return undefined
    },
    done: (a) => (issues.length === 0 ? E.right(a) : E.left(issues)),
  }
}

/** A record with a string `type` tag (other fields unchecked). */
export const TaggedC = t.type({ type: t.string }, 'an object with a string "type"')

/** An optional field: absent or `null` both read as `undefined`. */
export const optional = <C extends t.Mixed>(codec: C) => t.union([codec, t.undefined, t.null])

/** A history message made by a `from…` function: a new id, `normal` kind. */
export const fromMessage = (fields: MessageFields): Message => makeMessage(fields)

/**
 * The one assistant message a provider's response decodes to: its tool calls `pending` (the
 * response asks for them; nothing has run them yet), then a finish part when the response says why
 * it stopped, and the id, model, output tokens (with the reasoning share) and error it reports.
 */
export const replyMessage = (reply: {
  readonly provider: Vendor
  readonly parts: ReadonlyArray<Part>
  readonly id?: string | undefined
  readonly model?: string | undefined
  readonly finish?: string | undefined
  readonly output?: number | undefined
  readonly thinking?: number | null | undefined
  readonly error?: string | undefined
}): Message => {
  const parts: Part[] = reply.parts.map((p) => (isToolCall(p) ? { ...p, status: 'pending' as const } : p))
  if (reply.finish !== undefined) parts.push({ type: 'finish', reason: reply.finish })
  const { thinking } = reply
  return fromMessage({
    ...(reply.id === undefined ? {} : { id: reply.id }),
    role: 'assistant',
    parts,
    provider: reply.provider,
    ...(reply.model === undefined ? {} : { model: reply.model }),
    ...(reply.output === undefined ? {} : { tokens: { total: reply.output, ...(typeof thinking === 'number' ? { thinking } : {}) } }),
    ...(reply.error === undefined ? {} : { error: reply.error }),
  })
}

/**
 * Sets each tool call's status from the history: `complete` (or `error`) when a result answers
 * it, `pending` when none does yet.
 */
export const settleStatuses = (ms: ReadonlyArray<Message>): Messages => {
  const outcome = new Map<string, boolean>()
  for (const m of ms) for (const p of m.parts) if (isToolResult(p)) outcome.set(p.toolCallId, p.isError)
  return ms.map((m) =>
    m.parts.some(isToolCall)
      ? {
        ...m,
        parts: m.parts.map((p) => {
          if (!isToolCall(p)) return p
          const isError = outcome.get(p.id)
          return { ...p, status: isError === undefined ? 'pending' : isError ? 'error' : 'complete' }
        }),
      }
      : m
  )
}

/** The `error` text of a provider error body: `type: message`. */
export const errorText = (type: string | null | undefined, message: string): string => (type == null || type === '' ? message : `${type}: ${message}`)
