import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { compact } from '../../src/compaction/compact.ts'
import { SUMMARY_PROMPT } from '../../src/compaction/summary.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { textContent } from '../../src/message/accessors.ts'
import { textMessage } from '../../src/message/message.ts'
import { aiSdkSummarizer } from '../../src/summarize/ai-sdk.ts'
import { anthropicSummarizer } from '../../src/summarize/anthropic.ts'
import { openAISummarizer } from '../../src/summarize/openai.ts'

const GOOD =
  '## Goal\n- fix the cart total\n## Constraints\n- keep the API\n## Progress\n- tests fail\n## Decisions\n- sum in cents\n## Next steps\n- run the tests\n## Files\n- src/cart.ts'
const PARTIAL = '## Goal\n- fix the cart total\n## Progress\n- tests fail'

const history = [
  textMessage('system', 'You are a coding agent.'),
  ...Array.from(
    { length: 6 },
    (_, i) => [textMessage('user', `Step ${i}: fix the cart total in src/cart.ts, please.`), textMessage('assistant', `Working on step ${i}.`)],
  ).flat(),
]

const json = (body: unknown): Response => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })

/** A fetch that answers with `answers` in turn and records each request body. */
const scripted = (answer: (text: string) => unknown, answers: ReadonlyArray<string>) => {
  const bodies: Array<Record<string, unknown>> = []
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>)
    return json(answer(answers[Math.min(bodies.length, answers.length) - 1] as string))
  }
  return { fetch, bodies }
}

/** A fetch that never answers, and rejects when its request is aborted. */
const hanging = () => {
  const seen: AbortSignal[] = []
  let requested: () => void = () => undefined
  /** Settles once the client has sent its first request: abort after that, not after a guessed delay. */
  const sent = new Promise<void>((resolve) => (requested = resolve))
  const fetch = (_url: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
    new Promise((_, reject) => {
      const s = init?.signal
      requested()
      if (s === undefined || s === null) return
      seen.push(s)
      s.addEventListener('abort', () => reject(s.reason ?? new DOMException('aborted', 'AbortError')), { once: true })
    })
  return { fetch, seen, sent }
}

const chatCompletion = (text: string) => ({
  id: 'c1',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-test',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text, refusal: null } }],
})
const response = (text: string) => ({
  id: 'r1',
  object: 'response',
  created_at: 0,
  model: 'gpt-test',
  status: 'completed',
  output: [{ type: 'message', id: 'm1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] }],
})
const anthropicMessage = (text: string) => ({
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  stop_reason: 'end_turn',
  stop_sequence: null,
  content: [{ type: 'text', text }],
  usage: { input_tokens: 10, output_tokens: 5 },
})

const generated = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: 'stop' },
  usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
  warnings: [],
})

describe('aiSdkSummarizer (generateText, MockLanguageModelV3)', () => {
  it('sends SUMMARY_PROMPT as system and the transcript as the user message, and compact keeps the summary', async () => {
    const model = new MockLanguageModelV3({ doGenerate: generated(GOOD) })
    const r = await compact({ summarize: aiSdkSummarizer({ model, maxOutputTokens: 900 }), keepRecentTokens: 20 })(history)
    expect(r.report.missingSections).toEqual([])
    expect(textContent(r.messages.find(isCompactionSummary)!)).toContain('- sum in cents')
    const call = model.doGenerateCalls[0]!
    expect(call.prompt[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT })
    expect(JSON.stringify(call.prompt[1])).toContain('Step 0: fix the cart total')
    expect(call.maxOutputTokens).toBe(900)
  })

  it('asks again, naming the missing sections, when the first answer fails the check', async () => {
    const model = new MockLanguageModelV3({ doGenerate: [generated(PARTIAL), generated(GOOD)] })
    const summary = await aiSdkSummarizer({ model })('[User]: hi', { prompt: SUMMARY_PROMPT })
    expect(summary).toBe(GOOD)
    const second = model.doGenerateCalls[1]!.prompt
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(JSON.stringify(second[3])).toContain('Constraints, Decisions, Next steps, Files')
  })

  it('rejects after the last attempt when the summary still lacks sections', async () => {
    const model = new MockLanguageModelV3({ doGenerate: generated(PARTIAL) })
    await expect(aiSdkSummarizer({ model, attempts: 1 })('[User]: hi', { prompt: SUMMARY_PROMPT })).rejects.toThrow(
      'Cannot summarise: after 1 attempt the summary still lacks Constraints, Decisions, Next steps, Files',
    )
    expect(model.doGenerateCalls).toHaveLength(1)
  })

  it('passes the abort signal to the model', async () => {
    const controller = new AbortController()
    let asked: () => void = () => undefined
    const generating = new Promise<void>((resolve) => (asked = resolve))
    const model = new MockLanguageModelV3({
      doGenerate: (options) => {
        asked()
        return new Promise((_, reject) => options.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason), { once: true }))
      },
    })
    const p = compact({ summarize: aiSdkSummarizer({ model }), keepRecentTokens: 20, signal: controller.signal })(history)
    // abort once the model was asked, not after a guessed delay
    await generating
    controller.abort(new Error('stop now'))
    await expect(p).rejects.toThrow('stop now')
    expect(model.doGenerateCalls[0]?.abortSignal?.aborted).toBe(true)
  })
})

describe('openAISummarizer (OpenAI client with a custom fetch)', () => {
  it('Chat Completions: the prompt as the system message, then the transcript', async () => {
    const { fetch, bodies } = scripted(chatCompletion, [GOOD])
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    const r = await compact({ summarize: openAISummarizer({ client, model: 'gpt-test' }), keepRecentTokens: 20 })(history)
    expect(r.report.compacted).toBe(true)
    expect(textContent(r.messages.find(isCompactionSummary)!)).toBe(GOOD)
    const messages = bodies[0]?.['messages'] as Array<{ role: string; content: string }>
    expect(bodies[0]?.['model']).toBe('gpt-test')
    expect(messages[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT })
    expect(messages[1]?.content).toContain('Step 0: fix the cart total')
  })

  it('Responses API: the prompt as instructions; a partial answer is asked for again', async () => {
    const { fetch, bodies } = scripted(response, [PARTIAL, GOOD])
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    expect(await openAISummarizer({ client, model: 'gpt-test', api: 'responses' })('[User]: hi', { prompt: SUMMARY_PROMPT })).toBe(GOOD)
    expect(bodies).toHaveLength(2)
    expect(bodies[0]?.['instructions']).toBe(SUMMARY_PROMPT)
    expect((bodies[1]?.['input'] as Array<{ role: string }>).map((t) => t.role)).toEqual(['user', 'assistant', 'user'])
  })

  it('aborts the request with the signal', async () => {
    const { fetch, seen, sent } = hanging()
    const client = new OpenAI({ apiKey: 'test', fetch, maxRetries: 0 })
    const controller = new AbortController()
    const p = openAISummarizer({ client, model: 'gpt-test' })('[User]: hi', { prompt: SUMMARY_PROMPT, signal: controller.signal })
    await sent
    controller.abort()
    await expect(p).rejects.toThrow()
    expect(seen[0]?.aborted).toBe(true)
  })
})

describe('anthropicSummarizer (Anthropic client with a custom fetch)', () => {
  it('the prompt as system, the transcript as the user message, max_tokens set', async () => {
    const { fetch, bodies } = scripted(anthropicMessage, [GOOD])
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const r = await compact({ summarize: anthropicSummarizer({ client, model: 'claude-test', maxOutputTokens: 2_000 }), keepRecentTokens: 20 })(history)
    expect(textContent(r.messages.find(isCompactionSummary)!)).toBe(GOOD)
    expect(bodies[0]).toMatchObject({ model: 'claude-test', system: SUMMARY_PROMPT, max_tokens: 2_000 })
    expect((bodies[0]?.['messages'] as Array<{ content: string }>)[0]?.content).toContain('Step 0: fix the cart total')
  })

  it('rejects a summary without the sections after the retries', async () => {
    const { fetch, bodies } = scripted(anthropicMessage, [PARTIAL])
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    await expect(anthropicSummarizer({ client, model: 'claude-test', attempts: 3 })('[User]: hi', { prompt: SUMMARY_PROMPT })).rejects.toThrow(
      'after 3 attempts',
    )
    expect(bodies).toHaveLength(3)
  })

  it('aborts the request with the signal', async () => {
    const { fetch, seen, sent } = hanging()
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const controller = new AbortController()
    const p = anthropicSummarizer({ client, model: 'claude-test' })('[User]: hi', { prompt: SUMMARY_PROMPT, signal: controller.signal })
    await sent
    controller.abort()
    await expect(p).rejects.toThrow()
    expect(seen[0]?.aborted).toBe(true)
  })
})
