/**
 * What crosses into the engine, checked: a history is decoded message by message (a message
 * already in its in-memory form passes as it is, so identities and cached counts hold), counted
 * when a counter is given, in slices of a few milliseconds between which the work yields and
 * checks its signal. Bad input rejects with the decoder's issues by path. Private to the engine.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { decodeMessage, decodeMessages, type Message, MessageC, type Messages } from '../message/message.ts'
import type { TokenBreakdown } from '../tokens/message-tokens.ts'
import { type DecodeIssue, prefixFailure } from '../message/failure.ts'
import { decodeError, MAX_ISSUES } from '../history/blob.ts'
import { budget, yieldToEventLoop } from '../internal/schedule.ts'
import { throwIfAborted } from '../internal/abort.ts'
import type { TokenEstimate } from './types.ts'

/** Admitted messages: the decoded history (the input itself when every message was in form) and its counts. */
export type Admitted = { readonly messages: Messages; readonly counts: TokenEstimate }

/** Options of `admit`. */
export type AdmitOptions = {
  readonly signal: AbortSignal
  /** Counts with this counter (the caller's, which keeps the counts); without it, only decodes. */
  readonly count?: (m: Message) => TokenBreakdown
  /** Reports `(done, total)` between slices and at the end. */
  readonly progress?: (done: number, total: number) => void
  /** The position of the first message in a larger batch, for the paths of issues. */
  readonly offset?: number
}

const ZERO = { total: 0, content: 0, thinking: 0, tools: 0 } as const

/**
 * Decodes and counts `u` in slices. Rejects with a `TypeError` naming each bad field by path
 * (`[3].role: expected …, got "bot"`), or with the signal's reason.
 */
export const admit = async (u: unknown, o: AdmitOptions): Promise<Admitted> => {
  throwIfAborted(o.signal)
  if (!Array.isArray(u)) {
    const r = decodeMessages(u)
    throw decodeError(E.isLeft(r) ? r.left : [{ path: '', expected: 'Messages', actual: u }], false)
  }
  const input = u as ReadonlyArray<unknown>
  const count = o.count ?? (() => ZERO)
  const offset = o.offset ?? 0
  const slice = budget()
  const issues: DecodeIssue[] = []
  let truncated = false
  let out: Message[] | undefined
  let total = 0
  let content = 0
  let thinking = 0
  let tools = 0
  for (let i = 0; i < input.length; i++) {
    if (slice.spent()) {
      o.progress?.(i, input.length)
      await yieldToEventLoop()
      throwIfAborted(o.signal)
      slice.reset()
    }
    let m = input[i]
    if (!MessageC.is(m)) {
      const r = decodeMessage(m)
      if (E.isLeft(r)) {
        for (const issue of prefixFailure(`[${offset + i}]`)(r.left)) issues.push(issue)
        if (issues.length >= MAX_ISSUES) {
          truncated = issues.length > MAX_ISSUES || i < input.length - 1
          break
        }
        continue
      }
      out ??= input.slice(0, i) as Message[]
      m = r.right
    }
    out?.push(m as Message)
    if (issues.length > 0) continue
    const b = count(m as Message)
    total += b.total
    content += b.content
    thinking += b.thinking
    tools += b.tools
  }
  if (issues.length > 0) throw decodeError(issues.slice(0, MAX_ISSUES), truncated)
  o.progress?.(input.length, input.length)
  return { messages: out ?? (input as Messages), counts: { total, content, thinking, tools, messages: input.length } }
}
