import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import Anthropic from '@anthropic-ai/sdk'
import { makeMessage, type Message, textMessage } from '../../../src/message/message.ts'
import { reasoning, text, toolCall, toolResult } from '../../../src/message/part-make.ts'
import { applyContextEdits, CLEARED_RESULT, CONTEXT_MANAGEMENT_BETA, type ContextEdit } from '../../../src/compaction/context-edits.ts'
import { fromAnthropicRequest, toAnthropicRequest } from '../../../src/adapters/anthropic/request.ts'
import { fromAnthropicMessage } from '../../../src/adapters/anthropic/messages-from.ts'
import {
  anthropicInputTokens,
  appliedEditsOf,
  CONTEXT_EDITS_KEY,
  contextEditFromPrune,
  contextEditReport,
  withContextEdits,
} from '../../../src/adapters/anthropic/context-edits.ts'
import { pruneToolResultsWithReport } from '../../../src/history/prune.ts'

const right = <A>(r: E.Either<unknown, A>): A => {
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

// Tokens: one per character of text, result and arguments, so that the figures can be checked by hand.
const count = (m: Message): number =>
  m.parts.reduce(
    (n, p) =>
      n + (p.type === 'text' || p.type === 'reasoning'
        ? p.text.length
        : p.type === 'tool_result'
        ? p.content.length
        : p.type === 'tool_call'
        ? p.arguments.length
        : 0),
    0,
  )

const use = (n: number, name = 'read_file', size = 5_000): Message[] => [
  makeMessage({ id: `a${n}`, role: 'assistant', parts: [toolCall({ id: `c${n}`, name, arguments: `{"n":${n}}`, status: 'complete' })] }),
  makeMessage({ id: `t${n}`, role: 'tool', parts: [toolResult({ toolCallId: `c${n}`, name, content: 'x'.repeat(size) })] }),
]

const cleared = (ms: ReadonlyArray<Message>): string[] =>
  ms.flatMap((m) =>
    m.parts.flatMap((p) => (p.type === 'tool_result' && typeof p.content === 'string' && p.content.startsWith(`${CLEARED_RESULT} ref `) ? [p.toolCallId] : []))
  )

// The configurations of Anthropic's context-editing documentation.
const TOOL_CLEARING: ContextEdit = {
  type: 'clear_tool_uses_20250919',
  trigger: { type: 'input_tokens', value: 30_000 },
  keep: { type: 'tool_uses', value: 3 },
  clear_at_least: { type: 'input_tokens', value: 5_000 },
  exclude_tools: ['web_search'],
}
const THINKING_TWO_TURNS: ContextEdit = { type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } }
const THINKING_ALL: ContextEdit = { type: 'clear_thinking_20251015', keep: 'all' }

/** Eight tool uses of 5,000 tokens each (the second a web search), in three thinking turns. */
const history: ReadonlyArray<Message> = [
  textMessage('user', 'Research the topic'),
  makeMessage({ id: 'r1', role: 'assistant', parts: [reasoning('plan one', { signature: 's1' }), text('Starting.')] }),
  ...use(1),
  ...use(2, 'web_search'),
  ...use(3),
  textMessage('user', 'Go on'),
  makeMessage({ id: 'r2', role: 'assistant', parts: [reasoning('plan two', { signature: 's2' }), text('Going on.')] }),
  ...use(4),
  ...use(5),
  textMessage('user', 'Finish'),
  makeMessage({ id: 'r3', role: 'assistant', parts: [reasoning('plan three', { signature: 's3' }), text('Finishing.')] }),
  ...use(6),
  ...use(7),
  ...use(8),
]

/** A fetch that answers as the API documents, and records the body and the beta header: no network. */
const mockFetch = (answer: (body: unknown) => unknown) => {
  const asked: { url: string; body: unknown; beta: string | null }[] = []
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined
    asked.push({ url, body, beta: new Headers(init?.headers).get('anthropic-beta') })
    return new Response(JSON.stringify(answer(body)), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return { fetch, asked }
}

describe('one configuration, sent to Anthropic and applied locally', () => {
  it.each([
    ['tool result clearing', [TOOL_CLEARING]],
    ['thinking clearing, 2 turns kept', [THINKING_TWO_TURNS]],
    ['thinking clearing, all kept', [THINKING_ALL]],
    ['both, thinking first', [TOOL_CLEARING, THINKING_TWO_TURNS]],
  ])('%s: the body carries the same edits and the beta flag, and reads back as it went', (_, edits: ReadonlyArray<ContextEdit>) => {
    const request = withContextEdits(edits)({ model: 'claude-sonnet-4-5', messages: history, settings: { maxOutputTokens: 1024 } })
    const body = right(toAnthropicRequest()(request)).request
    const thinkingFirst = [...edits.filter((e) => e.type === 'clear_thinking_20251015'), ...edits.filter((e) => e.type !== 'clear_thinking_20251015')]
    expect(body['context_management']).toEqual({ edits: thinkingFirst })
    expect(body['betas']).toEqual([CONTEXT_MANAGEMENT_BETA])
    // the Anthropic reader keeps both, so the same request goes out again
    expect(right(fromAnthropicRequest(body)).providerFields?.['anthropic']).toMatchObject({
      context_management: { edits: thinkingFirst },
      betas: [CONTEXT_MANAGEMENT_BETA],
    })
  })

  it('tool result clearing locally: past 30,000 tokens, all but the last 3 uses, web_search spared, at least 5,000 freed', () => {
    const r = applyContextEdits([TOOL_CLEARING], { count })(history)
    expect(cleared(r.messages)).toEqual(['c1', 'c3', 'c4', 'c5'])
    expect(r.applied).toEqual([{
      type: 'clear_tool_uses_20250919',
      cleared_tool_uses: 4,
      cleared_input_tokens: 4 * (5_000 - `${CLEARED_RESULT} ref c1@01234567`.length),
    }])
    // under the trigger nothing happens, and a clearing that cannot free 5,000 tokens does not happen
    const under = history.slice(0, 12)
    expect(applyContextEdits([TOOL_CLEARING], { count })(under).messages).toBe(under)
    const small = [textMessage('user', 'Go'), ...[1, 2, 3, 4, 5, 6, 7].flatMap((n) => use(n, 'read_file', 4_400)), ...use(8, 'read_file', 1_000)]
    const least = applyContextEdits([{ ...TOOL_CLEARING, keep: { type: 'tool_uses', value: 7 } }], { count })(small)
    expect(least.applied).toEqual([])
    expect(least.messages).toBe(small)
  })

  it('thinking clearing locally: the last 2 turns keep their thinking, or every turn with all', () => {
    const thinking = (ms: ReadonlyArray<Message>): string[] => ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])))
    const two = applyContextEdits([THINKING_TWO_TURNS], { count })(history)
    expect(thinking(two.messages)).toEqual(['plan two', 'plan three'])
    expect(two.applied).toEqual([{ type: 'clear_thinking_20251015', cleared_thinking_turns: 1, cleared_input_tokens: 'plan one'.length }])
    expect(applyContextEdits([THINKING_ALL], { count })(history).messages).toBe(history)
  })

  it('through the SDK: the request carries context_management and the beta header, and applied_edits come back in the report', async () => {
    const local = applyContextEdits([TOOL_CLEARING, THINKING_TWO_TURNS], { count })(history)
    const usage = { input_tokens: 11_000, output_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
    const { fetch, asked } = mockFetch(() => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: 'Done.' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage,
      context_management: { applied_edits: local.applied },
    }))
    const client = new Anthropic({ apiKey: 'test', fetch, maxRetries: 0 })
    const request = withContextEdits([TOOL_CLEARING, THINKING_TWO_TURNS])({
      model: 'claude-sonnet-4-5',
      messages: history,
      settings: { maxOutputTokens: 1024 },
    })
    const { betas, ...body } = right(toAnthropicRequest()(request)).request
    const params = { ...body, betas } as Anthropic.Beta.MessageCreateParamsNonStreaming
    const response = await client.beta.messages.create(params)

    expect(asked[0]?.url).toMatch(/\/v1\/messages$/)
    expect(asked[0]?.beta).toContain(CONTEXT_MANAGEMENT_BETA)
    expect(asked[0]?.body).toMatchObject({ context_management: { edits: [THINKING_TWO_TURNS, TOOL_CLEARING] } })
    expect(asked[0]?.body).not.toHaveProperty('betas')

    const message = right(fromAnthropicMessage(response))
    expect(message.metadata?.[CONTEXT_EDITS_KEY]).toEqual(local.applied)
    expect(appliedEditsOf(message)).toEqual(local.applied)
    const report = contextEditReport(appliedEditsOf(response), anthropicInputTokens(response))
    expect(report).toMatchObject({ prunedResults: 4, prunedArgs: 0, clearedThinkingTurns: 1, tokensAfter: 11_000 })
    expect(report.tokensBefore - report.tokensAfter).toBe(local.applied.reduce((n, e) => n + e.cleared_input_tokens, 0))
  })

  it("keeps the request's other betas, adds the flag once, and replaces its context_management", () => {
    const base = {
      messages: history,
      providerFields: { anthropic: { betas: ['other-beta', CONTEXT_MANAGEMENT_BETA], context_management: { edits: [THINKING_ALL] } } },
    }
    expect(withContextEdits([TOOL_CLEARING])(base).providerFields?.['anthropic']).toEqual({
      betas: ['other-beta', CONTEXT_MANAGEMENT_BETA],
      context_management: { edits: [TOOL_CLEARING] },
    })
    const fresh = withContextEdits([TOOL_CLEARING])({ messages: history, providerFields: { anthropic: { betas: ['other-beta'] } } })
    expect(fresh.providerFields?.['anthropic']?.['betas']).toEqual(['other-beta', CONTEXT_MANAGEMENT_BETA])
  })

  it('a response without context management leaves no trace on the message', () => {
    const m = right(
      fromAnthropicMessage({ id: 'msg_2', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Hi' }], usage: { output_tokens: 1 } }),
    )
    expect(m.metadata?.[CONTEXT_EDITS_KEY]).toBeUndefined()
    expect(appliedEditsOf(m)).toEqual([])
  })
})

describe('contextEditFromPrune', () => {
  const long = [textMessage('user', 'Read them'), ...[1, 2, 3, 4, 5, 6].flatMap((n) => use(n, n === 2 ? 'todo_write' : 'read_file'))]

  it('maps minimumSavings, protectedTools and the protected tail to clear_at_least, exclude_tools and keep', () => {
    const edit = contextEditFromPrune({ protectTokens: 10_100, minimumSavings: 5_000, protectedTools: ['todo_write'], count })(long)
    expect(edit).toEqual({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 10_100 },
      keep: { type: 'tool_uses', value: 3 },
      clear_at_least: { type: 'input_tokens', value: 5_000 },
      exclude_tools: ['todo_write'],
    })
    expect(contextEditFromPrune({ protectTokens: 10_100, minimumSavings: 0, triggerTokens: 50_000, count })(long)).toEqual({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 50_000 },
      keep: { type: 'tool_uses', value: 3 },
    })
  })

  it('the edit clears, locally, the results the prune with the same options rewrites', () => {
    const opts = { protectTokens: 10_100, minimumSavings: 5_000, protectedTools: ['todo_write'], count }
    const pruned = pruneToolResultsWithReport(opts)(long)
    const rewritten = pruned.messages.flatMap((m, i) => m.parts.flatMap((p, j) => (p.type === 'tool_result' && p !== long[i]?.parts[j] ? [p.toolCallId] : [])))
    const edited = applyContextEdits([contextEditFromPrune(opts)(long)], { count })(long)
    expect(rewritten).toEqual(['c1', 'c3'])
    expect(cleared(edited.messages)).toEqual(rewritten)
  })
})
