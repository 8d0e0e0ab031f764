import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { GoogleGenAI } from '@google/genai'
import { anthropicCounter, cachedCounter, geminiCounter, openAICounter } from '../../src/counting/mod.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { textMessage } from '../../src/message/message.ts'

/** A fetch that answers as the API documents, and records what it was asked: no network. */
const mockFetch = (answer: (url: string, body: unknown) => unknown) => {
  const asked: { url: string; body: unknown }[] = []
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined
    asked.push({ url, body })
    return new Response(JSON.stringify(answer(url, body)), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, asked }
}

const history = [textMessage('system', 'Be brief.'), textMessage('user', 'How many tokens is this?')]
const right = <A>(r: E.Either<unknown, A>): A => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

describe('counting with the provider, through its own SDK', () => {
  it('Anthropic: messages.countTokens with the request as written, cached', async () => {
    const { fetch, asked } = mockFetch(() => ({ input_tokens: 21 }))
    const client = new Anthropic({ apiKey: 'test', fetch })
    const count = anthropicCounter(client)
    // blocks kept verbatim are typed loosely, so the request goes to the SDK as its params type
    const body = { model: 'claude-sonnet-4-5', ...(right(toAnthropic()(history)).request as Pick<Anthropic.MessageCountTokensParams, 'messages' | 'system'>) }
    expect(await count(body)).toBe(21)
    expect(await count(body)).toBe(21)
    expect(asked).toHaveLength(1)
    expect(asked[0]?.url).toMatch(/\/v1\/messages\/count_tokens$/)
    expect(asked[0]?.body).toEqual(body)
  })

  it('OpenAI: responses.inputTokens.count', async () => {
    const { fetch, asked } = mockFetch(() => ({ object: 'response.input_tokens', input_tokens: 17 }))
    const client = new OpenAI({ apiKey: 'test', fetch })
    const count = openAICounter(client)
    const body = { model: 'gpt-5', ...right(toOpenAIResponses()(history)).request }
    expect(await count(body)).toBe(17)
    expect(asked[0]?.url).toMatch(/\/responses\/input_tokens$/)
    expect(asked[0]?.body).toMatchObject({ model: 'gpt-5' })
  })

  it('Gemini: models.countTokens, and an answer without a count rejects', async () => {
    const { fetch } = mockFetch(() => ({ totalTokens: 12 }))
    const saved = globalThis.fetch
    globalThis.fetch = fetch as typeof globalThis.fetch
    try {
      const client = new GoogleGenAI({ apiKey: 'test' })
      const count = geminiCounter(client)
      const body = right(toGemini()(history)).request
      expect(await count({ model: 'gemini-2.5-flash', contents: body.contents })).toBe(12)
    } finally {
      globalThis.fetch = saved
    }
    const empty = geminiCounter({ models: { countTokens: async () => ({}) } })
    await expect(empty({})).rejects.toThrow(/no totalTokens/)
  })
})

describe('cachedCounter', () => {
  it('asks once per distinct request, shares an answer on its way, forgets a failure and the oldest', async () => {
    let calls = 0
    let fail = true
    const count = cachedCounter(
      async (b: { readonly n: number }) => {
        calls++
        if (b.n === 0 && fail) throw new Error('rate limited')
        return b.n * 10
      },
      { size: 2 },
    )
    const [a, b] = await Promise.all([count({ n: 1 }), count({ n: 1 })])
    expect([a, b, calls]).toEqual([10, 10, 1])
    await expect(count({ n: 0 })).rejects.toThrow('rate limited')
    fail = false
    expect(await count({ n: 0 })).toBe(0)
    expect(calls).toBe(3)
    await count({ n: 2 })
    await count({ n: 3 }) // evicts { n: 0 }, the least recently used
    await count({ n: 0 })
    expect(calls).toBe(6)
  })
})
