/**
 * Private helpers of the history modules (not exported from the package): pair-safe selection,
 * "says something" tests and string truncation. Each is one pass and returns its input itself
 * when nothing changes.
 *
 * @module
 */
import { isCompactionBoundary, isToolCall, isToolResult } from '../message/part-make.ts'
import { type Part, type ToolResultPart } from '../message/part-model.ts'
import type { Message, Messages } from '../message/message.ts'
import { nonNegativeInt } from '../internal/number.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'

// --- substance ---

/** Whether a UTF-16 unit is white space as `String.prototype.trim` sees it (WhiteSpace and LineTerminator). */
const isWhite = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/** `s.trim() === ''` without building the trimmed string: usually one look at the first unit. */
export const isBlank = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) if (!isWhite(s.charCodeAt(i))) return false
  return true
}

/** Whether a part says something a provider would accept as content (not reasoning, a finish marker or blank text). */
export const isSubstantive = (p: Part): boolean =>
  !(p.type === 'reasoning' || p.type === 'finish' || (p.type === 'text' && isBlank((p as { readonly text: string }).text)))

/** Whether any part says something; text is read only when no other part settles it. */
export const hasSubstance = (parts: ReadonlyArray<Part>): boolean => {
  let text = false
  for (let i = 0; i < parts.length; i++) {
    const type = (parts[i] as Part).type
    if (type === 'text') text = true
    else if (type !== 'reasoning' && type !== 'finish') return true
  }
  if (text) for (let i = 0; i < parts.length; i++) if (isSubstantive(parts[i] as Part)) return true
  return false
}

// --- what goes to the model ---

/** Whether a message goes to the model: normal, synthetic (one-turn guidance) or ephemeral (one-turn error feedback). */
export const isForLLM = (m: Message): boolean => m.kind === 'normal' || m.kind === 'synthetic' || m.kind === 'ephemeral'

/**
 * The index of the last provider compaction boundary part (`isCompactionBoundary`) of a message
 * that goes to the model, or -1: where the history a provider reads starts, when it is the last.
 */
export const boundaryPart = (m: Message): number => {
  if (!isForLLM(m)) return -1
  const ps = m.parts
  for (let j = ps.length - 1; j >= 0; j--) if (isCompactionBoundary(ps[j] as Part)) return j
  return -1
}

// --- string sets ---

/**
 * A set of strings that only grows, for call ids: `add` says whether the string was new. It keeps
 * each string's hash next to it, so a probe compares hashes and reads a stored string only on a
 * match, where a `Set` of freshly built strings reads a stored string (somewhere in the heap) at
 * nearly every probe; on 10,000 call ids it is twice as fast.
 */
export type StringSet = { readonly add: (s: string) => boolean; readonly has: (s: string) => boolean }

const hashOf = (s: string): number => {
  let h = 0x811c9dc5 // FNV-1a over UTF-16 units
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h | 0 // as an Int32Array keeps it (the empty string's hash is the offset basis, above 2^31)
}

export const stringSet = (): StringSet => {
  let slots = new Int32Array(64) // index + 1 of the string in `keys`, 0 when free
  const keys: string[] = []
  let hashes = new Int32Array(32)
  /** The slot holding `s`, else the free slot where it would go. */
  const find = (s: string, h: number): number => {
    const mask = slots.length - 1
    let i = h & mask
    for (;;) {
      const k = slots[i] as number
      if (k === 0 || (hashes[k - 1] === h && keys[k - 1] === s)) return i
      i = (i + 1) & mask
    }
  }
  return {
    has: (s) => slots[find(s, hashOf(s))] !== 0,
    add: (s) => {
      const h = hashOf(s)
      const i = find(s, h)
      if (slots[i] !== 0) return false
      const n = keys.length
      if (n === hashes.length) {
        const grown = new Int32Array(n * 2)
        grown.set(hashes)
        hashes = grown
      }
      keys.push(s)
      hashes[n] = h
      slots[i] = n + 1
      if ((n + 1) * 2 > slots.length) {
        // at half full, double and re-place every string by its kept hash
        slots = new Int32Array(slots.length * 2)
        const mask = slots.length - 1
        for (let k = 0; k <= n; k++) {
          let j = (hashes[k] as number) & mask
          while (slots[j] !== 0) j = (j + 1) & mask
          slots[j] = k + 1
        }
      }
      return true
    },
  }
}


// --- truncation ---

/**
 * Cuts strings to at most `max` UTF-16 code units, ending with a marker that says how much went
 * when the marker fits; never splits a surrogate pair. Returns a string itself when it already
 * fits. The marker's fixed tail is built once per `max`.
 */
export const truncator = (max: number): ((s: string) => string) => {
  const tail = ` chars to ${max}]`
  return (s) => {
    if (s.length <= max) return s
    const marker = `\n[truncated ${s.length}${tail}`
    const fits = marker.length < max
    let keep = fits ? max - marker.length : max
    if (keep > 0 && isHighSurrogate(s.charCodeAt(keep - 1))) keep--
    return fits ? s.slice(0, keep) + marker : s.slice(0, keep)
  }
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff

/**
 * A message rewrite that cuts tool results, `f(m, max, cut)`, with the limit normalised and its
 * truncator built once, for the views and edits that take a result length.
 */
export const cuttingResults = (maxLen: number, f: (m: Message, max: number, cut: (s: string) => string) => Message): ((m: Message) => Message) => {
  const max = nonNegativeInt(maxLen)
  const cut = truncator(max)
  return (m) => f(m, max, cut)
}

/** Whether a part is a tool result longer than `max`. */
const isLongResult = (p: Part, max: number): boolean => p.type === 'tool_result' && (p as ToolResultPart).content.length > max

/** The message with each tool result's content cut by `cut` (a `truncator(max)`); the message itself when none is longer than `max`. */
export const truncateResultsOf = (m: Message, max: number, cut: (s: string) => string): Message => {
  const ps = m.parts
  let parts: Part[] | undefined
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as Part
    if (!isLongResult(p, max)) continue
    parts ??= ps.slice()
    parts[i] = { ...p, content: cut((p as ToolResultPart).content) } as Part
  }
  return parts === undefined ? m : { ...m, parts }
}

/** The message without reasoning parts; the message itself when it has none. The new parts array is made at its final size. */
export const stripReasoning = (m: Message): Message => {
  const ps = m.parts
  let size = 0
  for (let i = 0; i < ps.length; i++) if ((ps[i] as Part).type !== 'reasoning') size++
  if (size === ps.length) return m
  const parts = new Array<Part>(size)
  let k = 0
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as Part
    if (p.type !== 'reasoning') parts[k++] = p
  }
  return { ...m, parts }
}

/**
 * The message without reasoning and with tool results cut by `cut` (a `truncator(max)`); the
 * message itself when it has neither. The new parts array is made at its final size.
 */
export const compactMessage = (m: Message, max: number, cut: (s: string) => string): Message => {
  const ps = m.parts
  let i = 0
  while (i < ps.length && (ps[i] as Part).type !== 'reasoning' && !isLongResult(ps[i] as Part, max)) i++
  if (i === ps.length) return m
  let size = i
  for (let j = i; j < ps.length; j++) if ((ps[j] as Part).type !== 'reasoning') size++
  const out = new Array<Part>(size)
  for (let j = 0; j < i; j++) out[j] = ps[j] as Part
  let k = i
  for (; i < ps.length; i++) {
    const p = ps[i] as Part
    if (p.type === 'reasoning') continue
    out[k++] = isLongResult(p, max) ? ({ ...p, content: cut((p as ToolResultPart).content) } as Part) : p
  }
  return { ...m, parts: out }
}

// --- pair-safe selection ---

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

/** Keeps the messages `keep` accepts, returning `ms` itself when it keeps them all. */
export const filterSame = (ms: Messages, keep: (m: Message) => boolean): Messages => {
  let i = 0
  while (i < ms.length && keep(ms[i] as Message)) i++
  if (i === ms.length) return ms
  const out = ms.slice(0, i)
  for (i++; i < ms.length; i++) {
    const m = ms[i] as Message
    if (keep(m)) out.push(m)
  }
  return out
}

/** Maps every message, returning `ms` itself when `f` returns every message itself. */
export const mapSame = (ms: Messages, f: (m: Message) => Message): Messages => {
  let out: Message[] | undefined
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i] as Message
    const n = f(m)
    if (n !== m) {
      out ??= ms.slice()
      out[i] = n
    }
  }
  return out ?? ms
}

/**
 * Whether a message starts a turn: a user message of kind `normal` with something of its own to
 * say (not only tool results, which answer the turn before), and not a compaction summary.
 *
 * @example
 * import { startsTurn } from './shared.ts'
 * startsTurn({ id: 'u', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'hi' }] }) // true
 */
export const startsTurn = (m: Message): boolean => m.role === 'user' && m.kind === 'normal' && !isCompactionSummary(m) && !onlyResults(m.parts)

/** Whether there are parts and every one is a tool result. */
const onlyResults = (ps: ReadonlyArray<Part>): boolean => {
  for (let i = 0; i < ps.length; i++) if ((ps[i] as Part).type !== 'tool_result') return false
  return ps.length > 0
}
