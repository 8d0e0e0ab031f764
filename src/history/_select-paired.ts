/**
 * Pair-safe selection: keeping some messages of a history so that no tool call or result loses
 * its partner.
 *
 * @module
 */
import { isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part } from '../message/part-model.ts'
import type { Message, Messages } from '../message/message.ts'
import { hasSubstance } from './_substance.ts'

/** The tool-call id a call or result part refers to, if it is one. */
export const pairId = (p: Part): string | undefined => (isToolCall(p) ? p.id : isToolResult(p) ? p.toolCallId : undefined)

/** Whether a part is a call or result whose id is in `ids`. */
const inPairs = (p: Part, ids: ReadonlySet<string>): boolean => {
  const id = pairId(p)
  return id !== undefined && ids.has(id)
}

/**
 * The message without the call and result parts whose id is in `ids`; the message itself when it
 * has none. The new parts array is made at its final size.
 */
export const stripPairs = (m: Message, ids: ReadonlySet<string>): Message => {
  const ps = m.parts
  let gone = 0
  for (let i = 0; i < ps.length; i++) if (inPairs(ps[i] as Part, ids)) gone++
  if (gone === 0) return m
  const parts = new Array<Part>(ps.length - gone)
  let k = 0
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as Part
    if (!inPairs(p, ids)) parts[k++] = p
  }
  return { ...m, parts }
}

/**
 * Removes the lost partners `ids` from the kept messages `out[from, to)` (a turn's stretch of a
 * selection's output), dropping a message that loses parts and is left with nothing of substance,
 * and closes the gaps in place. Returns the output's new length.
 */
const settleTurn = (out: Message[], from: number, to: number, ids: ReadonlySet<string>): number => {
  let w = from
  for (let r = from; r < to; r++) {
    const cur = out[r] as Message
    const next = stripPairs(cur, ids)
    // a message that lost parts (a transform never adds any) and has nothing left to say goes
    if (next !== cur && !hasSubstance(next.parts)) continue
    out[w++] = next
  }
  return w
}

/**
 * Keeps the messages `keep` accepts, mapped by `transform` (which never adds parts), so that no
 * tool call or result loses its partner: when a dropped message holds calls or results, the parts
 * with those ids are removed from the kept messages of the same turn (from the assistant message
 * that opened it, or else from the dropped message, up to the next user or assistant message:
 * where a provider looks for partners), and a kept message that loses parts and is left with
 * nothing of substance goes too.
 *
 * One walk: each kept message is written out as it comes, and when a turn that lost a partner
 * ends, its stretch of the output (a few messages, still in cache) is revisited once. Only
 * dropped messages and those stretches have their parts read for ids. It allocates the output
 * (once, at the first change, then cut to its length), the messages it rewrites and one set of
 * ids (at the first dropped call or result, emptied at each turn that used it); it returns `ms`
 * itself, having allocated nothing, when nothing changes.
 */
export const selectPaired = (ms: Messages, keep: (m: Message, i: number) => boolean, transform?: (m: Message) => Message): Messages => {
  const n = ms.length
  // the output, made at the first change (until then it is `ms[0, k)`)
  let out: Message[] | undefined
  let k = 0
  // the current turn: where its output starts, whether an assistant message opened it, whether
  // its dropped messages held ids (in `ids`) and where the output stood when the first of them went
  let turnOut = 0
  let assistantTurn = false
  let ids: Set<string> | undefined
  let lost = false
  let dropOut = 0
  for (let i = 0; i < n; i++) {
    const m = ms[i] as Message
    const role = m.role
    if (role === 'user' || role === 'assistant') {
      if (lost) {
        k = settleTurn(out as Message[], assistantTurn ? turnOut : dropOut, k, ids as Set<string>)
        ;(ids as Set<string>).clear()
        lost = false
      }
      turnOut = k
      assistantTurn = role === 'assistant'
    }
    if (!keep(m, i)) {
      out ??= ms.slice()
      const ps = m.parts
      for (let j = 0; j < ps.length; j++) {
        const id = pairId(ps[j] as Part)
        if (id === undefined) continue
        if (!lost) {
          ids ??= new Set()
          lost = true
          dropOut = k
        }
        ;(ids as Set<string>).add(id)
      }
      continue
    }
    const next = transform === undefined ? m : transform(m)
    if (next !== m) {
      out ??= ms.slice()
      if (next.parts.length < m.parts.length && !hasSubstance(next.parts)) continue
    }
    if (out !== undefined) out[k] = next
    k++
  }
  if (out === undefined) return ms
  if (lost) k = settleTurn(out, assistantTurn ? turnOut : dropOut, k, ids as Set<string>)
  out.length = k
  return out
}
