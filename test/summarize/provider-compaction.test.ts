import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { type Message, type Messages, textMessage } from '../../src/message/message.ts'
import { compact } from '../../src/compaction/compact.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { forLLM } from '../../src/history/views.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { ANTHROPIC_COMPACTION_BETA, anthropicCompaction } from '../../src/summarize/anthropic.ts'
import { openAICompaction } from '../../src/summarize/openai.ts'

const right = <A>(r: E.Either<unknown, A>): A => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** A fetch that answers as the API documents, and records the body and the beta header: no network. */
const mockFetch = (answer: (url: string, body: unknown) => unknown) => {
  const asked: { url: string; body: unknown; beta: string | null }[] = []
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined
    asked.push({ url, body, beta: new Headers(init?.headers).get('anthropic-beta') })
    return new Response(JSON.stringify(answer(url, body)), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, asked }
}

const history: Messages = [
  textMessage('system', 'Be brief.'),
  textMessage('user', `Write the parser. ${'The grammar is long. '.repeat(40)}`),
  textMessage('assistant', `Written. ${'It handles every case. '.repeat(40)}`),
  textMessage('user', 'Now the tests.'),
  textMessage('assistant', 'Done.'),
]
const compactOpts = { keepRecentTokens: 40 }

const BLOCK = { type: 'compaction', content: '## Goal\nA parser, then its tests.', encrypted_content: 'Zm9vYmFy+/==', signature: 'c2lnbmF0dXJl' }
const anthropicAnswer = (block: unknown) => ({
  id: 'msg_c1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [block],
  stop_reason: 'compaction',
  stop_sequence: null,
  usage: { input_tokens: 400, output_tokens: 30 },
})

const boundaryOf = (m: Message | undefined): unknown => (m?.parts[0]?.type === 'provider' ? m.parts[0].data : undefined)

describe('anthropicCompaction', () => {
  it('sends the head as an on-demand compaction request and makes its block the boundary, byte for byte, sent back first', async () => {
    const { fetch, asked } = mockFetch(() => anthropicAnswer(BLOCK))
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const { messages, archive, report } = await compact({ summarize: anthropicCompaction({ client, model: 'claude-sonnet-4-6' }), ...compactOpts })(history)

    // the request: the system prompt and the head, as the Anthropic writer writes them, with the beta
    expect(asked).toHaveLength(1)
    expect(asked[0]?.url).toMatch(/\/v1\/messages$/)
    expect(asked[0]?.beta).toContain(ANTHROPIC_COMPACTION_BETA)
    const head = right(toAnthropic()(history.slice(0, 3))).request
    expect(asked[0]?.body).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 4_096,
      system: head.system,
      messages: head.messages,
      compaction: { type: 'summarize' },
    })

    // the history: system prompt, the block alone in an assistant message, the kept tail
    expect(messages.map((m) => m.role)).toEqual(['system', 'assistant', 'user', 'assistant'])
    const summary = messages[1]
    expect(JSON.stringify(boundaryOf(summary))).toBe(JSON.stringify(BLOCK))
    expect(summary !== undefined && isCompactionSummary(summary)).toBe(true)
    expect(archive).toEqual(history.slice(1, 3))
    expect(report).toMatchObject({ compacted: true, summarised: 2, preserved: 2, missingSections: [] })
    expect(report.summaryTokens).toBeGreaterThan(0)
    expect(report.tokensAfter).toBeLessThan(report.tokensBefore)

    // sent first after the system prompt, and written back unchanged
    expect(forLLM(messages)[1]).toEqual(summary)
    const written = right(toAnthropic()(messages)).request
    expect(JSON.stringify(written.messages[0])).toBe(JSON.stringify({ role: 'assistant', content: [BLOCK] }))
  })

  it('the next compaction sends the boundary first, and the new block replaces it', async () => {
    const second = { ...BLOCK, content: '## Goal\nA parser, its tests, the docs.', encrypted_content: 'YmF6' }
    const answers = [BLOCK, second]
    const { fetch, asked } = mockFetch(() => anthropicAnswer(answers.shift()))
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const summarize = anthropicCompaction({ client, model: 'claude-sonnet-4-6', instructions: 'Keep file names.' })
    const once = await compact({ summarize, ...compactOpts })(history)
    const grown = [...once.messages, textMessage('user', `Now the docs. ${'They are long. '.repeat(40)}`), textMessage('assistant', 'Docs done.')]
    const twice = await compact({ summarize, ...compactOpts })(grown)

    const sent = asked[1]?.body as { readonly messages: ReadonlyArray<unknown>; readonly compaction: unknown }
    expect(JSON.stringify(sent.messages[0])).toBe(JSON.stringify({ role: 'assistant', content: [BLOCK] }))
    expect(sent.compaction).toEqual({ type: 'summarize', instructions: 'Keep file names.' })
    expect(JSON.stringify(boundaryOf(twice.messages[1]))).toBe(JSON.stringify(second))
    expect(twice.archive[0]).toBe(once.messages[1])
    expect(forLLM(twice.messages).filter((m) => m.parts.some((p) => p.type === 'provider'))).toHaveLength(1)
  })

  it('rejects a failed compaction (a block without a summary) and an answer without a block, leaving the history as it was', async () => {
    const failed = mockFetch(() => anthropicAnswer({ type: 'compaction', content: null, encrypted_content: null }))
    const client = new Anthropic({ apiKey: 'test', fetch: failed.fetch, maxRetries: 0 })
    await expect(compact({ summarize: anthropicCompaction({ client, model: 'm' }), ...compactOpts })(history)).rejects.toThrow(/no summary/)
    const none = mockFetch(() => ({ ...anthropicAnswer({ type: 'text', text: 'Sure.' }), stop_reason: 'end_turn' }))
    const other = new Anthropic({ apiKey: 'test', fetch: none.fetch, maxRetries: 0 })
    await expect(compact({ summarize: anthropicCompaction({ client: other, model: 'm' }), ...compactOpts })(history)).rejects.toThrow(
      /no compaction block \(stop_reason end_turn\)/,
    )
  })

  it('needs the messages: called on a transcript alone it rejects', async () => {
    const client = new Anthropic({ apiKey: 'test', fetch: mockFetch(() => ({})).fetch, maxRetries: 0 })
    await expect(anthropicCompaction({ client, model: 'm' })('[User]: hi', { prompt: 'p' })).rejects.toThrow(/needs the messages/)
  })
})

describe('openAICompaction', () => {
  const ITEM = { id: 'cmp_0123', type: 'compaction', encrypted_content: 'gAAAAABpZ2Vu+/ZXJpYw==' }
  const answer = {
    id: 'resp_cmp_1',
    object: 'response.compaction',
    created_at: 1_760_000_000,
    output: [{
      id: 'msg_u1',
      type: 'message',
      status: 'completed',
      role: 'user',
      content: [{ type: 'input_text', text: history[1]?.parts[0]?.type === 'text' ? history[1].parts[0].text : '' }],
    }, ITEM],
    usage: {
      input_tokens: 400,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 60,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 460,
    },
  }

  it('sends the head to responses.compact and makes its compaction item the boundary, byte for byte, sent back first', async () => {
    const { fetch, asked } = mockFetch(() => answer)
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    const { messages, archive, report } = await compact({ summarize: openAICompaction({ client, model: 'gpt-5.4' }), ...compactOpts })(history)

    expect(asked[0]?.url).toMatch(/\/responses\/compact$/)
    const head = right(toOpenAIResponses()(history.slice(0, 3))).request
    expect(asked[0]?.body).toEqual({ model: 'gpt-5.4', input: head.input })
    expect(head.input[0]).toMatchObject({ role: 'system', content: 'Be brief.' })

    expect(messages).toHaveLength(4)
    expect(JSON.stringify(boundaryOf(messages[1]))).toBe(JSON.stringify(ITEM))
    expect(archive).toEqual(history.slice(1, 3))
    expect(report).toMatchObject({ compacted: true, summarised: 2, missingSections: [] })
    expect(forLLM(messages)[1]).toEqual(messages[1])
    const written = right(toOpenAIResponses()(messages)).request
    expect(written.input[0]).toEqual(head.input[0])
    expect(JSON.stringify(written.input[1])).toBe(JSON.stringify(ITEM))
  })

  it('rejects a compacted window without a compaction item', async () => {
    const { fetch } = mockFetch(() => ({ ...answer, output: answer.output.slice(0, 1) }))
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    await expect(compact({ summarize: openAICompaction({ client, model: 'gpt-5.4' }), ...compactOpts })(history)).rejects.toThrow(/no compaction item/)
  })
})
