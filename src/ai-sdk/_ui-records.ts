/**
 * How a UI message is kept as a chat store message and read back: the record a stored message
 * holds (a UI message's chatfold messages and its revision, or a compaction), their order, and the
 * UI messages a record gives back.
 *
 * @module
 */
import type { UIMessage } from 'ai'
import * as E from 'fp-ts/Either'
import { textContent } from '../message/accessors.ts'
import { decodeMessages, type Message, type Messages } from '../message/message.ts'
import { isCompactionBoundary } from '../message/part-make.ts'
import { COMPACTION_KEY } from '../message/compaction-mark.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { type AIUIMessage, toUIMessages } from '../adapters/ai-sdk/ui-messages.ts'
import { fromUIMessages } from '../adapters/ai-sdk/ui-messages-from.ts'
import { formatAdapterFailure } from '../adapters/types.ts'
import { isObject } from '../internal/object.ts'
import { type Held, type HeldCompaction } from './_store-backend.ts'
import { UIMessageStoreError } from './errors.ts'

/** The metadata key of what a stored message holds for chatfold. */
export const KEY = 'chatfold'

/**
 * What a stored message holds: a UI message's chatfold messages (and its revision), or a
 * compaction; `n` numbers the messages saved here in a conversation (0, 1, 2, …), so that the
 * ones the store dropped can be counted.
 */
export type Stored =
  & { readonly storeId: string; readonly n?: number; readonly wire: unknown; readonly messages: Messages }
  & (
    | { readonly type: 'ui'; readonly uiId: string; readonly revision: number; readonly stepStart?: false }
    | { readonly type: 'compaction' }
  )

/** A stored message as a record: one saved here, or one written by another client (its content as one message). */
export const recordOf = (h: Held): Stored => {
  const kept = isObject(h.metadata) ? h.metadata[KEY] : undefined
  if (isObject(kept) && Array.isArray(kept['messages'])) {
    const d = decodeMessages(kept['messages'])
    if (E.isLeft(d)) throw new UIMessageStoreError('unreadable', `Cannot load message ${JSON.stringify(h.id)}: ${formatDecodeFailure(d.left)}`)
    const common = { storeId: h.id, wire: kept['messages'], messages: d.right, ...(typeof kept['n'] === 'number' ? { n: kept['n'] } : {}) }
    if (kept['compaction'] === true) return { type: 'compaction', ...common }
    const uiId = typeof kept['ui'] === 'string' ? kept['ui'] : h.id
    const revision = typeof kept['revision'] === 'number' ? kept['revision'] : 1
    return { type: 'ui', uiId, revision, ...common, ...(kept['stepStart'] === false ? { stepStart: false as const } : {}) }
  }
  const message: Message = { id: h.id, role: h.role, parts: h.parts, kind: 'normal' }
  return { type: 'ui', storeId: h.id, uiId: h.id, revision: 1, wire: undefined, messages: [message] }
}

/** A compaction committed as the store's overlay by `saveCompaction`: its summary message; none for another writer's overlay. */
export const compactionOf = (o: HeldCompaction): ReadonlyArray<Stored> => {
  const kept = isObject(o.metadata) ? o.metadata[KEY] : undefined
  if (!isObject(kept) || kept['compaction'] !== true || typeof kept['id'] !== 'string' || !Array.isArray(kept['messages'])) return []
  const d = decodeMessages(kept['messages'])
  if (E.isLeft(d)) throw new UIMessageStoreError('unreadable', `Cannot load compaction ${JSON.stringify(kept['id'])}: ${formatDecodeFailure(d.left)}`)
  return [{ type: 'compaction', storeId: kept['id'], wire: kept['messages'], messages: d.right }]
}

/** The keys of an object that JSON keeps: those whose value is not `undefined`. */
const jsonKeys = (o: Readonly<Record<string, unknown>>): ReadonlyArray<string> => Object.keys(o).filter((k) => o[k] !== undefined)

/**
 * Where two JSON values first differ (object keys in any order, a key whose value is `undefined`
 * as absent), as a path (`''` for the root); `undefined` when they are equal.
 */
const firstDifference = (a: unknown, b: unknown, path: string): string | undefined => {
  if (a === b) return undefined
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`)
      if (d !== undefined) return d
    }
    return a.length === b.length ? undefined : `${path}[${Math.min(a.length, b.length)}]`
  }
  if (!isObject(a) || !isObject(b)) return path
  for (const k of new Set([...jsonKeys(a), ...jsonKeys(b)])) {
    if (a[k] === undefined || b[k] === undefined) return `${path}.${k}`
    const d = firstDifference(a[k], b[k], `${path}.${k}`)
    if (d !== undefined) return d
  }
  return undefined
}

export const sameJson = (a: unknown, b: unknown): boolean => firstDifference(a, b, '') === undefined

/** The latest record of each UI message, at the place of its first, and the compactions, each after the message holding the newest message it replaced. */
export const arrange = (records: ReadonlyArray<Stored>): ReadonlyArray<Stored> => {
  const out: Stored[] = []
  const at = new Map<string, number>()
  for (const r of records) {
    if (r.type === 'ui') {
      const i = at.get(r.uiId)
      if (i === undefined) {
        at.set(r.uiId, out.length)
        out.push(r)
      } else {
        const was = out[i]
        if (was?.type === 'ui' && r.revision > was.revision) out[i] = r
      }
      continue
    }
    const info = r.messages[0]?.metadata?.[COMPACTION_KEY]
    const through = isObject(info) && typeof info['through'] === 'string' ? info['through'] : undefined
    const after = through === undefined ? -1 : out.findIndex((x) => x.messages.some((m) => m.id === through))
    out.splice(after < 0 ? out.length : after + 1, 0, r)
    for (const [k, v] of at) if (after >= 0 && v > after) at.set(k, v + 1)
  }
  return out
}

/**
 * The chatfold messages of one UI message, with ids that do not change between saves: the UI id,
 * then `id~1`, `id~2`, …; a UI message they would not give back as it came (a field
 * `fromUIMessages` has no place for) is an error naming the field. An assistant message without a
 * leading `step-start` part is converted back with one (the AI SDK reads both alike); the record
 * says so (`stepStart: false`), and `load` gives it back without one, as it was saved.
 */
export const messagesOfUI = (ui: UIMessage): Messages => {
  const r = fromUIMessages({ messages: [ui] })
  if (E.isLeft(r)) throw new UIMessageStoreError('unsavable', `Cannot save UI message ${JSON.stringify(ui.id)}: ${formatDecodeFailure(r.left)}`)
  const ms = r.right.map((m, i) => (i === 0 ? { ...m, id: ui.id } : { ...m, id: `${ui.id}~${i}` }))
  const back = toUIMessages()(ms)
  if (E.isLeft(back))
    throw new UIMessageStoreError('unsavable', `Cannot save UI message ${JSON.stringify(ui.id)}: it would not load back (${formatAdapterFailure(back.left)})`)
  // an assistant message comes back opened by a `step-start` part, as the AI SDK streams it: one without is the same message
  const expected = ui.role === 'assistant' && ui.parts[0]?.type !== 'step-start' ? { ...ui, parts: [{ type: 'step-start' }, ...ui.parts] } : ui
  const lost = firstDifference(JSON.parse(JSON.stringify(back.right.request.messages[0])), JSON.parse(JSON.stringify(expected)), '')
  if (lost !== undefined)
    throw new UIMessageStoreError(
      'unsavable',
      `Cannot save UI message ${JSON.stringify(ui.id)}: it would not load back as it is (it differs at ${lost === '' ? 'the message' : lost.slice(1)})`,
    )
  return ms
}

/** The text a stored message shows readers of the store that know nothing of chatfold (its content must say something). */
export const contentOf = (ms: Messages, fallback: string): string => {
  const text = ms.map(textContent).filter((t) => t !== '').join('\n')
  return text === '' ? fallback : text
}

/** What a compaction shows in a UI: the summary's text, a provider boundary's summary text, or a line naming the provider. */
export const summaryText = (m: Message): string => {
  const text = textContent(m)
  if (text !== '') return text
  const boundary = m.parts.find(isCompactionBoundary)
  if (boundary === undefined) return '(compacted)'
  const data = boundary.data
  return isObject(data) && typeof data['content'] === 'string' && data['content'] !== '' ? data['content'] : `(compacted by ${boundary.provider})`
}

/** A record as UI messages: what `toUIMessages` gives back, or a compaction's summary as a text message marked `metadata.chatfold.compaction`. */
export const uiOf = (r: Stored): ReadonlyArray<UIMessage> => {
  if (r.type === 'compaction') {
    const m = r.messages[0]
    if (m === undefined) return []
    const info = m.metadata?.[COMPACTION_KEY]
    return [{
      id: r.storeId,
      role: m.role === 'assistant' ? 'assistant' : 'user',
      metadata: { [KEY]: { compaction: info ?? {} } },
      parts: [{ type: 'text', text: summaryText(m) }],
    }]
  }
  const back = toUIMessages()(r.messages)
  if (E.isLeft(back)) throw new UIMessageStoreError('unreadable', `Cannot load message ${JSON.stringify(r.storeId)}: ${formatAdapterFailure(back.left)}`)
  const uis = back.right.request.messages.map((m: AIUIMessage) => m as UIMessage)
  // an assistant message saved without a leading step-start part comes back without one, as it was saved
  return r.stepStart === false ? uis.map((m, i) => (i === 0 && m.parts[0]?.type === 'step-start' ? { ...m, parts: m.parts.slice(1) } : m)) : uis
}
