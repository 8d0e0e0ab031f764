/**
 * Private helpers of the history modules (not exported from the package): pair-safe selection,
 * "says something" tests and string truncation. Each is one pass and returns its input itself
 * when nothing changes.
 *
 * @module
 */
import { isReasoning, isToolCall, isToolResult, type Part } from '../part.ts'
import type { Message, Messages } from '../message.ts'

// --- substance ---

/** Whether a part says something a provider would accept as content (not reasoning, a finish marker or blank text). */
export const isSubstantive = (p: Part): boolean =>
  !(p.type === 'reasoning' || p.type === 'finish' || (p.type === 'text' && (p as { readonly text: string }).text.trim() === ''))

/** Whether any part says something. */
export const hasSubstance = (parts: ReadonlyArray<Part>): boolean => {
  for (const p of parts) if (isSubstantive(p)) return true
  return false
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

// --- normalising ---

/** A count normalised to a non-negative integer (NaN and negatives are 0; Infinity stays). */
export const nonNegativeInt = (n: number): number => (Number.isNaN(n) || n <= 0 ? 0 : Math.floor(n))

// --- truncation ---

/**
 * Cuts `s` to at most `max` UTF-16 code units, ending with a marker that says how much went when
 * the marker fits; never splits a surrogate pair. Returns `s` itself when it already fits.
 */
export const truncateText = (s: string, max: number): string => {
  if (s.length <= max) return s
  const marker = `\n[truncated ${s.length} chars to ${max}]`
  let keep = marker.length < max ? max - marker.length : max
  const code = s.charCodeAt(keep - 1)
  if (keep > 0 && code >= 0xd800 && code <= 0xdbff) keep--
  return marker.length < max ? s.slice(0, keep) + marker : s.slice(0, keep)
}

/** The message with each tool result's content cut to `max`; the message itself when none is longer. */
export const truncateResultsOf = (m: Message, max: number): Message => {
  let parts: Part[] | undefined
  for (let i = 0; i < m.parts.length; i++) {
    const p = m.parts[i] as Part
    if (!isToolResult(p) || p.content.length <= max) continue
    parts ??= m.parts.slice()
    parts[i] = { ...p, content: truncateText(p.content, max) }
  }
  return parts === undefined ? m : { ...m, parts }
}

/** The message without reasoning parts; the message itself when it has none. */
export const stripReasoning = (m: Message): Message => {
  const ps = m.parts
  for (let i = 0; i < ps.length; i++) if ((ps[i] as Part).type === 'reasoning') return { ...m, parts: ps.filter((p) => !isReasoning(p)) }
  return m
}

/** The message without reasoning and with tool results cut to `max`, in one pass over its parts. */
export const compactMessage = (m: Message, max: number): Message => {
  const ps = m.parts
  let out: Part[] | undefined
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i] as Part
    if (p.type === 'reasoning') {
      out ??= ps.slice(0, i)
      continue
    }
    const q = isToolResult(p) && p.content.length > max ? { ...p, content: truncateText(p.content, max) } : p
    if (out !== undefined) out.push(q)
    else if (q !== p) {
      out = ps.slice(0, i)
      out.push(q)
    }
  }
  return out === undefined ? m : { ...m, parts: out }
}

// --- pair-safe selection ---

/** The tool-call id a call or result part refers to, if it is one. */
export const pairId = (p: Part): string | undefined => (isToolCall(p) ? p.id : isToolResult(p) ? p.toolCallId : undefined)

/** The message without the call and result parts whose id is in `ids`; the message itself when it has none. */
export const stripPairs = (m: Message, ids: ReadonlySet<string>): Message => {
  let hit = false
  for (const p of m.parts) {
    const id = pairId(p)
    if (id !== undefined && ids.has(id)) {
      hit = true
      break
    }
  }
  if (!hit) return m
  return {
    ...m,
    parts: m.parts.filter((p) => {
      const id = pairId(p)
      return id === undefined || !ids.has(id)
    }),
  }
}

/** A stretch of a history where tool calls meet their results: an assistant message and the messages up to the next user or assistant message. */
type Block = { readonly start: number; readonly end: number; readonly ids: Set<string> }

const endsBlock = (m: Message): boolean => m.role === 'user' || m.role === 'assistant'

/**
 * Keeps the messages `keep` accepts, mapped by `transform`, so that no tool call or result loses
 * its partner: when a dropped message holds calls or results, the parts with those ids are removed
 * from the kept messages of the same block (the assistant turn and the tool messages that follow
 * it, where a provider looks for partners), and a kept message that loses parts and is left with
 * nothing of substance goes too. Only dropped messages and their blocks have their parts read, so
 * the cost is one look at each message. Returns `ms` itself when nothing changes.
 */
export const selectPaired = (ms: Messages, keep: (m: Message, i: number) => boolean, transform?: (m: Message) => Message): Messages => {
  const n = ms.length
  let dropped: Uint8Array | undefined
  const blocks: Block[] = []
  let cur: Block | undefined
  for (let i = 0; i < n; i++) {
    const m = ms[i] as Message
    if (keep(m, i)) continue
    ;(dropped ??= new Uint8Array(n))[i] = 1
    let ids: string[] | undefined
    for (const p of m.parts) {
      const id = pairId(p)
      if (id !== undefined) (ids ??= []).push(id)
    }
    if (ids === undefined) continue
    if (cur === undefined || i >= cur.end) {
      let start = i
      if (!endsBlock(m)) {
        // back to the assistant message that opened this block; the previous block's end is a user
        // or assistant message, so the walk never goes below it (linear overall)
        for (let j = i - 1; j >= (cur === undefined ? 0 : cur.end); j--) {
          const r = (ms[j] as Message).role
          if (r === 'assistant') start = j
          if (r === 'assistant' || r === 'user') break
        }
      }
      let end = i + 1
      while (end < n && !endsBlock(ms[end] as Message)) end++
      cur = { start, end, ids: new Set() }
      blocks.push(cur)
    }
    for (const id of ids) cur.ids.add(id)
  }
  if (dropped === undefined && transform === undefined) return ms
  const out: Message[] = []
  let changed = dropped !== undefined
  let b = 0
  for (let i = 0; i < n; i++) {
    if (dropped !== undefined && dropped[i] === 1) continue
    const m = ms[i] as Message
    let next = transform === undefined ? m : transform(m)
    while (b < blocks.length && (blocks[b] as Block).end <= i) b++
    const block = blocks[b]
    if (block !== undefined && block.start <= i) next = stripPairs(next, block.ids)
    if (next !== m) {
      changed = true
      if (next.parts.length < m.parts.length && !hasSubstance(next.parts)) continue
    }
    out.push(next)
  }
  return changed ? out : ms
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
