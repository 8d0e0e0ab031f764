import { describe, expect, it } from 'vitest'
import { type UIMessage, validateUIMessages } from 'ai'
import { toUIMessages } from '../../../src/adapters/ai-sdk/ui-messages.ts'
import { fromUIMessages } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'
import { fromAnthropicRequest } from '../../../src/adapters/anthropic/request.ts'
import { fromGeminiRequest } from '../../../src/adapters/gemini/request.ts'
import { fromOpenAIResponsesRequest } from '../../../src/adapters/openai/request.ts'
import { toAnthropic } from '../../../src/adapters/anthropic/messages.ts'
import { isInternal } from '../../../src/message/accessors.ts'
import type { Messages } from '../../../src/message/message.ts'
import type { AdapterNote } from '../../../src/adapters/types.ts'
import { right } from '../support.ts'
import { corpus } from '../fixtures/anthropic-corpus.ts'
import { responsesCorpus } from '../fixtures/openai-corpus.ts'
import { geminiCorpus } from '../fixtures/gemini-corpus.ts'

type Case = readonly [string, Messages]
const cases: ReadonlyArray<Case> = [
  ...corpus.map((c): Case => [`Anthropic ${c.name}`, right(fromAnthropicRequest({ model: 'claude-sonnet-4-5', max_tokens: 1024, ...c.body })).messages]),
  ...Object.entries(responsesCorpus).map((
    [name, body],
  ): Case => [`OpenAI Responses ${name}`, right(fromOpenAIResponsesRequest({ model: 'gpt-5', ...body })).messages]),
  ...geminiCorpus.map((c): Case => [`Gemini ${c.name}`, right(fromGeminiRequest(c.body)).messages]),
]

/** The provider parts of the messages a UI shows (a tool result's blocks among them), as `messageId provider:kind`. */
const providerParts = (ms: Messages, owner: string): ReadonlyArray<string> =>
  ms.filter((m) => !isInternal(m)).flatMap((m) =>
    m.parts.flatMap((
      p,
    ): ReadonlyArray<
      { readonly type: string; readonly provider?: string; readonly kind?: string }
    > => (p.type === 'tool_result' && typeof p.content !== 'string' ? p.content : [p])).flatMap((p) =>
      p.type === 'provider' && p.provider !== owner ? [`${m.id} ${p.provider}:${p.kind ?? ''}`] : []
    )
  )

/** The provider parts the `dynamic-tool` parts of UI messages carry (`callProviderMetadata.chatfold`), as `messageId provider:kind` and as parts. */
const carriedBy = (ms: ReadonlyArray<{ readonly id: string; readonly parts: ReadonlyArray<unknown> }>) =>
  ms.flatMap((m) =>
    m.parts.flatMap((p) => {
      const c = p as {
        type?: string
        providerExecuted?: boolean
        callProviderMetadata?: { chatfold?: { provider: string; kinds: string[]; blocks: unknown[] } }
      }
      const carried = c.type === 'dynamic-tool' && c.providerExecuted === true ? c.callProviderMetadata?.chatfold : undefined
      return carried === undefined ? [] : carried.kinds.map((kind, i) => ({
        part: `${m.id} ${carried.provider}:${kind}`,
        data: { type: 'provider', provider: carried.provider, kind, data: carried.blocks[i] },
      }))
    })
  )

/** The provider parts a report names, mapped or left out. */
const named = (notes: ReadonlyArray<AdapterNote>): ReadonlyArray<string> =>
  notes.flatMap((n) => (n.kind === 'provider_part_mapped' || n.kind === 'provider_part_dropped' ? [`${n.messageId} ${n.provider}:${n.type}`] : []))

const withParts = cases.filter(([, ms]) => providerParts(ms, 'ai-sdk').length > 0)

describe('toUIMessages on provider parts (the recorded bodies of the adapters’ corpora)', () => {
  it('has bodies with provider parts of each provider to try', () => {
    const providers = new Set(withParts.flatMap(([, ms]) => providerParts(ms, 'ai-sdk').map((s) => s.split(' ')[1]?.split(':')[0])))
    expect(providers).toEqual(new Set(['anthropic', 'openai', 'google']))
  })

  it.each(withParts)('%s: every provider part is carried or left out with a note, as for every other target', async (_, ms) => {
    const { request, report } = right(toUIMessages()(ms))
    // what it writes is UI messages the AI SDK takes
    await validateUIMessages({ messages: request.messages as Array<UIMessage> })
    // a server tool the provider ran is a dynamic-tool part carrying its blocks; every other provider part is named in a note
    const carried = carriedBy(request.messages)
    expect([...named(report.notes), ...carried.map((c) => c.part)].sort()).toEqual([...providerParts(ms, 'ai-sdk')].sort())
    // the same words as another provider's target, part for part, for what is not carried
    const other = right(toAnthropic()(ms)).report.notes.filter((n) => n.kind === 'provider_part_mapped' || n.kind === 'provider_part_dropped')
    for (const n of other.filter((x) => x.provider !== 'anthropic' && !carried.some((c) => c.part === `${x.messageId} ${x.provider}:${x.type}`))) {
      expect(report.notes).toContainEqual(n)
    }
    // and what is carried comes back from fromUIMessages as it came
    const back = right(fromUIMessages({ messages: request.messages }))
    const parts = (m: Messages) => m.flatMap((x) => x.parts).filter((p) => p.type === 'provider' && p.provider !== 'ai-sdk')
    for (const c of carried) expect(parts(back)).toContainEqual(c.data)
    // what a mapping made shows in the UI messages: texts in a text part, calls as tool parts
    const texts = request.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])))
    const calls = request.messages.flatMap((m) => m.parts.flatMap((p) => ('toolCallId' in p ? [p.toolCallId] : [])))
    for (const n of report.notes) if (n.kind === 'provider_part_mapped') expect(n.to.length).toBeGreaterThan(0)
    expect(texts.length + calls.length).toBeGreaterThan(0)
  })

  it('an Anthropic web search comes through as a dynamic-tool part, its results as the output, its pages as source-url parts', () => {
    const c = corpus.find((x) => JSON.stringify(x.body).includes('web_search_tool_result'))
    expect(c).toBeDefined()
    const ms = right(fromAnthropicRequest({ model: 'claude-sonnet-4-5', max_tokens: 1024, ...c?.body })).messages
    const result = ms.flatMap((m) => m.parts).find((p) => p.type === 'provider' && p.kind === 'web_search_tool_result')
    const pages: ReadonlyArray<string> = JSON.stringify(result).match(/https:\/\/[^"]+/g) ?? []
    expect(pages.length).toBeGreaterThan(0)
    const tools = right(toUIMessages()(ms)).request.messages.flatMap((m) => m.parts.filter((p) => p.type === 'dynamic-tool'))
    expect(tools).toContainEqual(expect.objectContaining({ toolName: 'web_search', providerExecuted: true, state: 'output-available' }))
    const output = JSON.stringify(tools.map((t) => ('output' in t ? t.output : undefined)))
    for (const u of pages) expect(output).toContain(u)
    // and each page as the source-url part the AI SDK has for it
    const sources = right(toUIMessages()(ms)).request.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'source-url' ? [p.url] : [])))
    expect(sources).toEqual(pages)
  })

  it('an OpenAI web search call’s sources come through as source-url parts', () => {
    const body = Object.values(responsesCorpus).find((b) => JSON.stringify(b).includes('"sources"'))
    expect(body).toBeDefined()
    const ms = right(fromOpenAIResponsesRequest({ model: 'gpt-5', ...body })).messages
    const call = ms.flatMap((m) => m.parts).find((p) => p.type === 'provider' && p.kind === 'web_search_call')
    const listed = call?.type === 'provider' ? (call.data as { action?: { sources?: ReadonlyArray<{ url?: string }> } }).action?.sources ?? [] : []
    expect(listed.length).toBeGreaterThan(0)
    const sources = right(toUIMessages()(ms)).request.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'source-url' ? [p.url] : [])))
    expect(sources).toEqual(listed.map((x) => x.url))
  })
})
