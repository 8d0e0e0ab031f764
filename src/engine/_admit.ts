/**
 * What crosses into the engine, checked: a history decoded message by message (one already in its
 * in-memory form passes as it is, so identities and cached counts hold) and counted, in slices of a
 * few milliseconds between which the work yields and checks its signal. Private to the engine.
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

export type AdmitOptions = {
  readonly signal: AbortSignal
  /** Counts with this counter (the caller's, which keeps the counts); without it, only decodes. */
  readonly count?: (m: Message) => TokenBreakdown
  /** Reports `(done, total)` between slices and at the end. */
  readonly progress?: (done: number, total: number) => void
  /** The position of the first message in a larger batch, for the paths of issues. */
  readonly offset?: number
}

/** Decodes and counts `u` in slices; rejects with a `TypeError` naming each bad field by path (`[3].role: expected …`), or the signal's reason. */
export const admit = async (u: unknown, o: AdmitOptions): Promise<Admitted> => {
  throwIfAborted(o.signal)
  if (!Array.isArray(u)) {
    const r = decodeMessages(u)
    throw decodeError(E.isLeft(r) ? r.left : [{ path: '', expected: 'Messages', actual: u }], false)
  }
  const input: ReadonlyArray<unknown> = u
  const slice = budget()
  const issues: DecodeIssue[] = []
  let out: Message[] | undefined
  const counts = { total: 0, content: 0, thinking: 0, tools: 0, messages: input.length }
  let i = 0 // kept past the loop: where it stopped tells whether issues may be missing
  for (; i < input.length; i++) {
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
        for (const issue of prefixFailure(`[${(o.offset ?? 0) + i}]`)(r.left)) issues.push(issue)
        if (issues.length >= MAX_ISSUES) break
        continue
      }
      out ??= input.slice(0, i) as Message[]
      m = r.right
    }
    out?.push(m as Message)
    if (issues.length > 0 || o.count === undefined) continue
    const b = o.count(m as Message)
    counts.total += b.total
    counts.content += b.content
    counts.thinking += b.thinking
    counts.tools += b.tools
  }
  if (issues.length > 0) throw decodeError(issues.slice(0, MAX_ISSUES), issues.length > MAX_ISSUES || i < input.length - 1)
  o.progress?.(input.length, input.length)
  return { messages: out ?? (input as Messages), counts }
}
