import { describe, expect, it } from 'vitest'
import type { ToolResultContent } from '../../src/message/part-model.ts'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { image, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { calibrationFromUsage, countModelRequest } from '../../src/counting/count.ts'
import type { ToolDefinition } from '../../src/adapters/request.ts'
import { imageSize } from '../../src/internal/image-size.ts'
import { planCompaction, shouldCompact } from '../../src/compaction/plan.ts'
import { lastReportedUsage } from '../../src/tokens/usage.ts'
import { smartHeuristic } from '../../src/tokens/heuristic.ts'
import { forLLM } from '../../src/history/views.ts'

// image headers with a given size, in each format's own layout
const png = (w: number, h: number): Uint8Array => {
  const d = new Uint8Array(33)
  d.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
  new DataView(d.buffer).setUint32(16, w)
  new DataView(d.buffer).setUint32(20, h)
  return d
}
const gif = (w: number, h: number): Uint8Array => {
  const d = new Uint8Array(13)
  d.set([0x47, 0x49, 0x46, 0x38, 0x39, 0x61])
  new DataView(d.buffer).setUint16(6, w, true)
  new DataView(d.buffer).setUint16(8, h, true)
  return d
}
const jpeg = (w: number, h: number): Uint8Array => {
  // SOI, an APP0 segment of 16 bytes, then SOF0 with height and width
  const d = new Uint8Array([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0,
    16,
    ...new Array<number>(14).fill(0),
    0xff,
    0xc0,
    0,
    17,
    8,
    h >> 8,
    h & 255,
    w >> 8,
    w & 255,
    3,
    ...new Array<number>(12).fill(0),
  ])
  return d
}
const webpX = (w: number, h: number): Uint8Array => {
  const d = new Uint8Array(30)
  d.set([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x58])
  const v = new DataView(d.buffer)
  v.setUint16(24, (w - 1) & 0xffff, true)
  d[26] = ((w - 1) >> 16) & 255
  v.setUint16(27, (h - 1) & 0xffff, true)
  d[29] = ((h - 1) >> 16) & 255
  return d
}

describe('imageSize', () => {
  it('reads PNG, GIF, JPEG and WebP headers', () => {
    expect(imageSize(png(1024, 768))).toEqual({ width: 1024, height: 768 })
    expect(imageSize(gif(200, 100))).toEqual({ width: 200, height: 100 })
    expect(imageSize(jpeg(4000, 3000))).toEqual({ width: 4000, height: 3000 })
    expect(imageSize(webpX(1500, 900))).toEqual({ width: 1500, height: 900 })
    expect(imageSize(new Uint8Array([1, 2, 3]))).toBeUndefined()
  })
})

describe('countModelRequest: images by each provider’s documented rule', () => {
  const one = (data: Uint8Array): Message[] => [makeMessage({ role: 'user', parts: [image({ data, mediaType: 'image/png' })] })]
  const imageOnly = (provider: 'openai' | 'anthropic' | 'google', data: Uint8Array, detail?: 'low' | 'high'): number => {
    const empty =
      countModelRequest(provider, detail === undefined ? {} : { imageDetail: detail })({ messages: [makeMessage({ role: 'user', parts: [] })] }).total
    return countModelRequest(provider, detail === undefined ? {} : { imageDetail: detail })({ messages: one(data) }).total - empty
  }

  it('OpenAI: 765 for 1024 × 1024 and 1,105 for 2048 × 4096 at high detail, 85 at low', () => {
    expect(imageOnly('openai', png(1024, 1024))).toBe(765)
    expect(imageOnly('openai', png(2048, 4096))).toBe(1_105)
    expect(imageOnly('openai', png(4096, 8192), 'low')).toBe(85)
  })

  it('Anthropic: width × height / 750 (1,334 for 1000 × 1000), long side fitted in 1,568', () => {
    expect(imageOnly('anthropic', png(1000, 1000))).toBe(1_334)
    expect(imageOnly('anthropic', png(200, 200))).toBe(54)
    expect(imageOnly('anthropic', png(3136, 3136))).toBe(Math.ceil((1568 * 1568) / 750))
  })

  it('Gemini: 258 up to 384 × 384, else 258 per 768-pixel tile', () => {
    expect(imageOnly('google', png(384, 384))).toBe(258)
    expect(imageOnly('google', png(1536, 800))).toBe(258 * 2 * 2)
  })

  it('an image in a tool result counts by the same rule as one the user sent', () => {
    const inResult = (provider: 'openai' | 'anthropic' | 'google', data: Uint8Array): number => {
      const result = (content: ToolResultContent): Message[] => [makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content })] })]
      const without = countModelRequest(provider)({ messages: result([]) }).total
      return countModelRequest(provider)({ messages: result([image({ data, mediaType: 'image/png' })]) }).total - without
    }
    expect(inResult('openai', png(1024, 1024))).toBe(765)
    expect(inResult('anthropic', png(1000, 1000))).toBe(1_334)
    expect(inResult('google', png(1536, 800))).toBe(258 * 2 * 2)
  })
})

const tools: ReadonlyArray<ToolDefinition> = Array.from({ length: 40 }, (_, i) => ({
  type: 'function',
  name: `tool_${i}`,
  description: `Tool number ${i}: reads, searches and edits project files of kind ${i}, with options described below in detail.`,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(
      Array.from(
        { length: 8 },
        (
          _,
          k,
        ) => [`option_${k}`, {
          type: 'string',
          description: `The ${k}th option of tool ${i}: a path, a pattern or a flag, as the tool documents it at length.`,
        }],
      ),
    ),
    required: ['option_0'],
  },
}))

describe('the request’s fixed part in the budget', () => {
  const history: Message[] = [textMessage('system', 'You are a coding agent.', { id: 's' })]
  for (let i = 0; i < 40; i++) {
    history.push(textMessage('user', `Fix bug ${i} in the cart module, please.`, { id: `u${i}` }))
    history.push(
      makeMessage({
        id: `a${i}`,
        role: 'assistant',
        parts: [toolCall({ id: `c${i}`, name: 'tool_1', arguments: '{"option_0":"src/cart.ts"}', status: 'complete' })],
      }),
    )
    history.push(makeMessage({ id: `t${i}`, role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, content: 'line of the cart module\n'.repeat(40) })] }))
    history.push(textMessage('assistant', `Bug ${i} is fixed.`, { id: `b${i}` }))
  }

  it('40 tool definitions weigh thousands of tokens for every provider', () => {
    for (const provider of ['openai', 'anthropic', 'google'] as const) {
      const t = countModelRequest(provider)({ messages: history, tools })
      expect(t.tools).toBeGreaterThan(5_000)
      expect(t.total).toBe(t.system + t.messages + t.tools)
    }
  })

  it('tips shouldCompact over the window, and compact brings the whole request back under it', () => {
    const count = countModelRequest('anthropic')
    const withTools = count({ messages: history, tools })
    const alone = count({ messages: history })
    const window = Math.round((withTools.total + alone.total) / 2) + 4_000
    const opts = { contextWindow: window, reserveTokens: 4_000, estimate: smartHeuristic }
    // the history alone fits, with its tools it does not (calibrated as Anthropic counts)
    expect(shouldCompact({ ...opts, estimate: (s) => Math.round(smartHeuristic(s) * 1.25) })(history)).toBe(false)
    expect(shouldCompact({ ...opts, estimate: (s) => Math.round(smartHeuristic(s) * 1.25), fixedTokens: withTools.tools })(history)).toBe(true)
    // a tail that leaves room for the tools, the system prompt and a summary
    const plan = planCompaction({ keepRecentTokens: Math.floor((window - 4_000 - withTools.tools - withTools.system - 2_000) / 1.25) })(history)
    const after = [...plan.system, textMessage('user', 'Summary of the work so far: forty bugs of the cart module fixed.'), ...plan.preserved]
    expect(count({ messages: after, tools }).total).toBeLessThanOrEqual(window - 4_000)
  })
})

describe('usage as the anchor', () => {
  const reply = (id: string, input: number): Message =>
    makeMessage({ id, role: 'assistant', parts: [text('ok')], metadata: { usage: { input: input - 100, cacheRead: 100, output: 20 } } })

  it('lastReportedUsage reads the newest recorded report', () => {
    expect(lastReportedUsage([textMessage('user', 'a'), reply('a1', 1_000), textMessage('user', 'b'), reply('a2', 5_000)])).toEqual({
      messageId: 'a2',
      tokens: 5_020,
    })
    expect(lastReportedUsage([textMessage('user', 'a')])).toBeUndefined()
  })

  it('after a report, the decision’s error is the estimate of the messages added since, alone', () => {
    const added = textMessage('user', 'x '.repeat(3_000), { id: 'later' })
    const history = [textMessage('user', 'first'), reply('a1', 150_000), added]
    const estimateOfAdded = forLLM([added]).reduce((n, m) => n + smartHeuristic(m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')) + 4, 0)
    // the provider's count would be 150,020 plus the new message; chatfold's is the report plus its estimate of that message
    const limit = 150_020 + estimateOfAdded
    expect(shouldCompact({ contextWindow: limit + 1, reserveTokens: 0 })(history)).toBe(false)
    expect(shouldCompact({ contextWindow: limit - 1, reserveTokens: 0 })(history)).toBe(true)
    // the tools are in the report already: fixedTokens does not count them twice
    expect(shouldCompact({ contextWindow: limit + 1, reserveTokens: 0, fixedTokens: 50_000 })(history)).toBe(false)
  })

  it('calibrationFromUsage learns the ratio of reported prompts to the estimate', () => {
    const q = textMessage('user', 'word '.repeat(400))
    const est = smartHeuristic('word '.repeat(400)) + 4
    const history = [q, makeMessage({ role: 'assistant', parts: [text('ok')], metadata: { usage: { input: Math.round(est * 1.3), output: 5 } } })]
    expect(calibrationFromUsage({})(history)).toBeCloseTo(1.3, 2)
    expect(calibrationFromUsage({})([q])).toBeUndefined()
  })
})

describe('countRequest: a provider’s own request body, counted whole', () => {
  const anthropicTools = tools.map((t) => (t.type === 'function' ? { name: t.name, description: t.description, input_schema: t.inputSchema } : t))
  const body = {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    system: 'You are a coding agent.',
    tools: anthropicTools,
    messages: [{ role: 'user', content: 'Fix the cart.' }],
  }

  it('counts the tools the body offers, as countModelRequest does its envelope', async () => {
    const { countRequest } = await import('../../src/counting/count.ts')
    const { fromAnthropicRequest } = await import('../../src/adapters/anthropic/request.ts')
    const r = countRequest('anthropic')(body)
    if (r._tag === 'Left') throw new Error(JSON.stringify(r.left))
    expect(r.right.tools).toBeGreaterThan(5_000)
    expect(r.right.system).toBeGreaterThan(0)
    const decoded = fromAnthropicRequest(body)
    if (decoded._tag === 'Left') throw new Error('expected a request')
    expect(r.right).toEqual(countModelRequest('anthropic')(decoded.right))
  })

  it('reads each provider’s body, and names what is wrong with one that is not', async () => {
    const { countRequest } = await import('../../src/counting/count.ts')
    const chat = countRequest('openai-chat')({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'function', function: { name: 'ls', parameters: { type: 'object', properties: {} } } }],
    })
    expect(chat._tag === 'Right' && chat.right.tools).toBeGreaterThan(12)
    const gemini = countRequest('gemini')({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] })
    expect(gemini._tag === 'Right' && gemini.right.messages).toBeGreaterThan(0)
    const bad = countRequest('anthropic')({ messages: 'not a list' })
    expect(bad._tag).toBe('Left')
  })
  it('takes every wire API, and says why an AI SDK body has no count of its own (its vendor is its model’s)', async () => {
    const { countRequest } = await import('../../src/counting/count.ts')
    const r = countRequest('ai-sdk')({ messages: [{ role: 'user', content: 'Hi' }] })
    expect(r._tag === 'Left' && r.left[0]?.expected).toMatch(/countModelRequest/)
  })
})

describe('calibrationFromUsage between reports', () => {
  it('learns the tokenizer ratio from what the prompt grew by, so that tools and system outside the history cancel out', () => {
    const word = (n: number) => 'word '.repeat(n)
    const est = (t: string) => smartHeuristic(t) + 4
    const fixed = 20_000 // the system prompt and tools, in every report, never in the history
    const q1 = textMessage('user', word(400))
    const a1 = (input: number) => makeMessage({ id: 'a1', role: 'assistant', model: 'm', parts: [text('ok')], metadata: { usage: { input, output: 5 } } })
    const q2 = textMessage('user', word(2_000))
    const a2 = (input: number) => makeMessage({ id: 'a2', role: 'assistant', model: 'm', parts: [text('ok')], metadata: { usage: { input, output: 5 } } })
    const first = Math.round(fixed + est(word(400)) * 1.3)
    const second = Math.round(first + (est('ok') + est(word(2_000))) * 1.3)
    const history = [q1, a1(first), q2, a2(second)]
    expect(calibrationFromUsage({})(history)).toBeCloseTo(1.3, 2)
    // a sub-conversation's report is of another context, and is passed over
    const sub = makeMessage({ role: 'assistant', kind: 'display', model: 'm', parts: [text('x')], metadata: { usage: { input: 1, output: 1 } } })
    expect(calibrationFromUsage({})([q1, a1(first), sub, q2, a2(second)])).toBeCloseTo(1.3, 2)
  })
})
