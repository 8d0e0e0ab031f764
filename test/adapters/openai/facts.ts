/** What only OpenAI knows in a history, and whether a conversion's notes account for each of it. */
import { toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { toGemini } from '../../../src/adapters/gemini/contents.ts'
import { type AdapterNote } from '../../../src/adapters/types.ts'
import type { Messages } from '../../../src/message/message.ts'
import { openAIFields } from '../../../src/adapters/openai/_vocab.ts'
import { right } from '../support.ts'

// --- cross-provider: every fact of the input is in the output or a note ---

export type Fact = { readonly messageId: string; readonly key: string }

/** What only OpenAI knows in a history: its provider parts and the fields on parts and messages. */
export const facts = (ms: Messages): ReadonlyArray<Fact> =>
  ms.flatMap((m) => {
    const own = m.parts.flatMap((p): Fact[] => {
      if (p.type === 'provider') return [{ messageId: m.id, key: `part:${p.kind}` }]
      const f = openAIFields(p)
      const named = Object.keys(f ?? {}).filter((k) => !['type', 'continues', 'chatfold'].includes(k))
      return named.map((k) => ({ messageId: m.id, key: `field:${p.type}.${k}` }))
    })
    const meta = (m.metadata?.['providerFields'] as { openai?: Record<string, Record<string, unknown>> } | undefined)?.openai
    const message = ['item', 'message'].flatMap((api) =>
      Object.entries(meta?.[api] ?? {})
        .filter(([k, v]) => k !== 'type' && k !== 'chatfold' && !(k === 'role' && ['user', 'system', 'developer'].includes(String(v))))
        .map(([k]) => ({ messageId: m.id, key: `field:message.${api}.${k}` }))
    )
    return [...own, ...message]
  })

/** Whether a note accounts for a fact: the part mapped or dropped, the field dropped, the message left out. */
const covers = (notes: ReadonlyArray<AdapterNote>, f: Fact): boolean =>
  notes.some(
    (n) =>
      ('messageId' in n && n.messageId === f.messageId && n.kind === 'omitted_message') ||
      ((n.kind === 'provider_part_dropped' || n.kind === 'provider_part_mapped') && n.messageId === f.messageId && `part:${n.type}` === f.key) ||
      (n.kind === 'provider_fields_dropped' && n.messageId === f.messageId && n.fields.some((k) => f.key === `field:${n.part}.${k}`)),
  )

/** Citations that became sources on the text are carried, not dropped. */
const carried = (f: Fact): boolean => f.key === 'field:text.annotations'

const targets: ReadonlyArray<readonly [string, (ms: Messages) => ReadonlyArray<AdapterNote>]> = [
  ['Anthropic', (ms) => right(toAnthropic({ repair: 'repair' })(ms)).report.notes],
  ['Gemini', (ms) => right(toGemini({ repair: 'repair' })(ms)).report.notes],
  ['the AI SDK', (ms) => right(toModelMessages({ repair: 'repair' })(ms)).report.notes],
]

export const uncovered = (ms: Messages): ReadonlyArray<string> =>
  targets.flatMap(([name, to]) => {
    const notes = to(ms)
    return facts(ms)
      .filter((f) => !carried(f) && !covers(notes, f))
      .map((f) => `${name}: ${f.key} of ${f.messageId}`)
  })
