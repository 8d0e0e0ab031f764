/**
 * What crosses to another provider: before a `to…` adapter writes a history, every provider part of
 * another provider is mapped to built-in parts where a mapping is documented (web search results to
 * text with their sources, code execution to a call and its result, …) or left out with a
 * `provider_part_dropped` note; provider fields of another provider on built-in parts are mapped
 * the same way (citations to text) or left out with a `provider_fields_dropped` note, and so are
 * another provider's message-level fields (`metadata.providerFields`, noted with `part: 'message'`).
 * Nothing is dropped without a note.
 *
 * Each provider's rules live beside its adapter (`anthropic/foreign.ts`, …): what its own blocks
 * become elsewhere. Private to the adapters.
 *
 * @module
 */
import { makeMessage, type Message, type Messages } from '../message/message.ts'
import type { Part, ToolResultBlock, ToolResultPart } from '../message/part-model.ts'
import type { AdapterNote } from './types.ts'
import { anthropicPortable } from './anthropic/foreign.ts'
import { openAIPortable } from './openai/foreign.ts'
import { googlePortable } from './gemini/foreign.ts'
import { aiSdkPortable } from './ai-sdk/foreign.ts'
import { dropAllFields, type PortableRules } from './foreign-kit.ts'
import { isObject } from '../internal/object.ts'

const RULES: Readonly<Record<string, PortableRules>> = {
  anthropic: anthropicPortable,
  openai: openAIPortable,
  google: googlePortable,
  'ai-sdk': aiSdkPortable,
}

const noRule: PortableRules = {
  part: (p) => ({ kind: 'drop', reason: `no mapping of ${p.provider} "${p.kind}" to other providers` }),
  fields: dropAllFields,
}

const rulesOf = (provider: string): PortableRules => RULES[provider] ?? noRule

// --- the pass ---

/** A part without the fields of providers other than `target`, mapped by their rules. */
const portableFields = (target: string, m: Message, p: Part, notes: AdapterNote[]): Part => {
  const all = (p as { readonly providerFields?: Readonly<Record<string, Readonly<Record<string, unknown>>>> }).providerFields
  if (all === undefined) return p
  const foreign = Object.keys(all).filter((k) => k !== target)
  if (foreign.length === 0) return p
  const own = all[target]
  const { providerFields: _, ...bare } = p as Part & { readonly providerFields?: unknown }
  let out = (own === undefined ? bare : { ...bare, providerFields: { [target]: own } }) as Part
  for (const provider of foreign) {
    const r = rulesOf(provider).fields(out, all[provider] ?? {})
    out = r.part
    if (r.dropped.length > 0) notes.push({ kind: 'provider_fields_dropped', messageId: m.id, provider, part: p.type, fields: r.dropped })
  }
  return out
}

/**
 * A tool result whose blocks hold another provider's blocks (an Anthropic search result in a
 * result's content): each mapped by its provider's rules to text, images or files in its place, or
 * left out, noted. The result itself when it holds none.
 */
const portableResult = (target: string, m: Message, p: ToolResultPart, notes: AdapterNote[]): ToolResultPart => {
  if (typeof p.content === 'string' || !p.content.some((b) => b.type === 'provider' && b.provider !== target)) return p
  const blocks: ToolResultBlock[] = []
  for (const b of p.content) {
    if (b.type !== 'provider' || b.provider === target) {
      blocks.push(b)
      continue
    }
    const r = rulesOf(b.provider).part(b)
    const mapped = r.kind === 'drop' ? [] : r.parts.filter((x): x is ToolResultBlock => x.type === 'text' || x.type === 'image' || x.type === 'file')
    if (r.kind === 'drop' || mapped.length === 0) {
      const reason = r.kind === 'drop' ? r.reason : 'nothing a tool result holds'
      notes.push({ kind: 'provider_part_dropped', messageId: m.id, provider: b.provider, type: b.kind, reason })
    } else notes.push({ kind: 'provider_part_mapped', messageId: m.id, provider: b.provider, type: b.kind, to: mapped.map((x) => x.type) })
    blocks.push(...mapped)
  }
  return { ...p, content: blocks }
}

/** The parts of one message for `target`, and whether any of them is a tool result. */
const portableParts = (target: string, m: Message, notes: AdapterNote[]): { readonly parts: ReadonlyArray<Part>; readonly changed: boolean } => {
  let changed = false
  const parts: Part[] = []
  for (const p of m.parts) {
    if (p.type === 'provider' && p.provider !== target) {
      changed = true
      const r = rulesOf(p.provider).part(p)
      if (r.kind === 'drop') notes.push({ kind: 'provider_part_dropped', messageId: m.id, provider: p.provider, type: p.kind, reason: r.reason })
      else {
        notes.push({ kind: 'provider_part_mapped', messageId: m.id, provider: p.provider, type: p.kind, to: r.parts.map((x) => x.type) })
        parts.push(...r.parts)
      }
      continue
    }
    const f = portableFields(target, m, p, notes)
    const q = f.type === 'tool_result' ? portableResult(target, m, f, notes) : f
    if (q !== p) changed = true
    parts.push(q)
  }
  return { parts, changed }
}

/**
 * Splits an assistant message whose mapped parts hold tool results: the calls and everything
 * before the first result stay, the results go to a tool message right after, and what follows
 * them to a new assistant message. Ids are the message's own with `:2`, `:3` appended.
 */
const splitResults = (m: Message, parts: ReadonlyArray<Part>): ReadonlyArray<Message> => {
  if (m.role !== 'assistant' || !parts.some((p) => p.type === 'tool_result')) return [makeMessage({ ...m, parts })]
  const out: Message[] = []
  let own: Part[] = []
  let results: Part[] = []
  const flush = (): void => {
    if (own.length > 0) out.push(makeMessage({ ...m, id: out.length === 0 ? m.id : `${m.id}:${out.length + 1}`, parts: own }))
    if (results.length > 0) out.push(makeMessage({ ...m, id: `${m.id}:${out.length + 1}`, role: 'tool', parts: results }))
    own = []
    results = []
  }
  for (const p of parts) {
    if (p.type === 'tool_result') results.push(p)
    else {
      if (results.length > 0) flush()
      own.push(p)
    }
  }
  flush()
  return out
}

/** Notes the message-level fields of providers other than `target` (no adapter writes them elsewhere). */
const messageFields = (target: string, m: Message, notes: AdapterNote[]): void => {
  const all = m.metadata?.['providerFields']
  if (!isObject(all)) return
  for (const [provider, f] of Object.entries(all)) {
    if (provider === target || !isObject(f)) continue
    const lost = rulesOf(provider).messageFields?.(f) ?? Object.keys(f)
    if (lost.length > 0) notes.push({ kind: 'provider_fields_dropped', messageId: m.id, provider, part: 'message', fields: lost })
  }
}

/**
 * The history as `target` can take it: other providers' parts and fields mapped or left out, each
 * noted. Returns the input itself when it holds nothing of another provider.
 */
export const forTarget = (target: string, ms: Messages, notes: AdapterNote[]): Messages => {
  let out: Message[] | undefined
  ms.forEach((m, i) => {
    messageFields(target, m, notes)
    const { parts, changed } = portableParts(target, m, notes)
    if (!changed) {
      out?.push(m)
      return
    }
    out ??= ms.slice(0, i)
    out.push(...splitResults(m, parts))
  })
  return out ?? ms
}
