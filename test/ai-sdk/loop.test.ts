/**
 * The AI SDK's own agent loops (`generateText`, `streamText`, `ToolLoopAgent`) over a long
 * generated coding-agent history, with the SDK's mock model: each step the model asks for a tool
 * whose output is about 10,000 tokens, so the history grows past two million tokens in 200 steps.
 * The mock records what it receives and, as a provider would, refuses a prompt over the window.
 */
import * as E from 'fp-ts/Either'
import { generateText, type ModelMessage, stepCountIs, streamText, ToolLoopAgent, wrapLanguageModel } from 'ai'
import { describe, expect, it } from 'vitest'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import { countModelRequest } from '../../src/counting/count.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { contextMiddleware, contextPrepareStep, type ContextRecord } from '../../src/ai-sdk/mod.ts'
import { initial, LIMIT, LOGS, mockModel, OVERFLOW_STEP, READ_LOG, REQUEST, RESERVE, type Seen, STEPS, tools, WINDOW } from '../support/agent-loop.ts'

const options = { contextWindow: WINDOW, reserveTokens: RESERVE, estimate: heuristic } as const

/** Every prompt the model saw: within the window, by the AI SDK's rules, the request and every kept tool pair intact. */
const expectKept = (seen: ReadonlyArray<Seen>, original: ReadonlyArray<ModelMessage>) => {
  const calls = new Map<string, unknown>()
  for (const m of original)
    if (m.role === 'assistant' && typeof m.content !== 'string') { for (const p of m.content) if (p.type === 'tool-call') calls.set(p.toolCallId, p.input) }
  seen.forEach(({ prompt, tokens }, i) => {
    expect(tokens, `step ${i + 1}`).toBeLessThanOrEqual(LIMIT)
    expect(checkRequest('ai-sdk')({ messages: prompt }), `step ${i + 1}`).toEqual([])
    expect(prompt[0]?.role, `step ${i + 1}: the system prompt comes first`).toBe('system')
    const users = prompt.filter((m) => m.role === 'user')
    expect(users.at(-1)?.content, `step ${i + 1}`).toEqual([{ type: 'text', text: REQUEST }])
    const called = new Map<string, unknown>()
    for (const m of prompt) {
      if (m.role === 'assistant') { for (const p of m.content) if (p.type === 'tool-call') called.set(p.toolCallId, p.input) }
      if (m.role === 'tool') {
        for (const p of m.content)
          if (p.type === 'tool-result') expect(called.has(p.toolCallId), `step ${i + 1}: ${p.toolCallId} answered without its call`).toBe(true)
      }
    }
    // every call sent is one of the history's, with its input as it was (loop calls: `{ step }`), and answered
    for (const [id, input] of called) {
      if (calls.has(id)) expect(input).toEqual(calls.get(id))
      else expect(input).toEqual({ step: Number(id.slice('call_'.length)) })
      expect(prompt.some((m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool-result' && p.toolCallId === id)), `step ${i + 1}: ${id} unanswered`)
        .toBe(true)
    }
    // the newest tool output goes as it came
    if (i > 0) {
      const last = prompt.at(-1)
      expect(last?.role).toBe('tool')
      const out = last?.role === 'tool' ? last.content[0] : undefined
      expect(out?.type === 'tool-result' && out.output).toEqual({ type: 'text', value: `run ${i}\n${LOGS[i % LOGS.length]}` })
    }
  })
}

/** The tokens of a whole history, as the provider counts them. */
const historyTokens = (ms: ReadonlyArray<ModelMessage>): number => {
  const decoded = fromModelMessages({ messages: ms })
  if (E.isLeft(decoded)) throw new Error('the loop history does not decode')
  return countModelRequest('anthropic', { estimate: heuristic })({ messages: decoded.right }).total
}

/**
 * The messages all steps produced: `responseMessages` under ai 7 (whose `response.messages` holds the
 * last step's alone), `response.messages` under ai 6. The suite runs under both (the `ai7` project).
 */
const allResponseMessages = (r: { readonly response: { readonly messages: ReadonlyArray<ModelMessage> } }): ReadonlyArray<ModelMessage> =>
  'responseMessages' in r && Array.isArray(r.responseMessages) ? r.responseMessages : r.response.messages

const compactions = (records: ReadonlyArray<ContextRecord>) => records.filter((r) => r.compaction !== null)

/** The records a loop's steps carry in their provider metadata. */
const recordsOf = (steps: ReadonlyArray<{ readonly providerMetadata?: Readonly<Record<string, unknown>> | undefined }>): ContextRecord[] =>
  steps.flatMap((s) => (s.providerMetadata?.['chatfold'] === undefined ? [] : [s.providerMetadata['chatfold'] as ContextRecord]))

/** What every loop with chatfold must show: the records of the steps it changed, consistent with what the model counted. */
const expectRecords = (records: ReadonlyArray<ContextRecord>, seen: ReadonlyArray<Seen>, compacting: boolean) => {
  // every step from the one that would overflow on was changed, and said so
  expect(records).toHaveLength(STEPS - OVERFLOW_STEP + 1)
  records.forEach((r, i) => {
    expect(r.limit).toBe(LIMIT)
    expect(r.tokensBefore).toBeGreaterThan(LIMIT)
    expect(r.tokensAfter).toBe(seen[OVERFLOW_STEP - 1 + i]?.tokens)
    // nothing the history sent held was left out or repaired on the way back
    expect(r.notes).toBeUndefined()
  })
  const made = compactions(records)
  if (!compacting) return expect(made).toEqual([])
  expect(made.length).toBeGreaterThan(3)
  for (const r of made) {
    const c = r.compaction
    expect(c?.tokensAfter).toBeLessThanOrEqual(LIMIT)
    expect(c?.tokensBefore).toBeGreaterThan(LIMIT)
    expect(c?.messages).toBeGreaterThan(0)
    expect(c?.to).toBeGreaterThan(c?.from ?? Infinity)
    expect(c?.summary).toContain('## Goal')
  }
  // each compaction summarises on from where the previous one stopped
  made.slice(1).forEach((r, i) => expect(r.compaction?.from).toBe(made[i]?.compaction?.to))
}

// each loop runs in about 2 s; checking every prompt it sent takes as long again
describe('an AI SDK agent loop of 200 steps growing past two million tokens', { timeout: 60_000 }, () => {
  it('overflows the window at the named step without chatfold', async () => {
    const seen: Seen[] = []
    const { system, messages } = initial()
    await expect(generateText({ model: mockModel(seen), system, messages, tools, stopWhen: stepCountIs(STEPS) })).rejects.toThrow('prompt is too long')
    expect(seen.findIndex((s) => s.tokens > LIMIT) + 1).toBe(OVERFLOW_STEP)
    expect(seen).toHaveLength(OVERFLOW_STEP)
  })

  it('stays within the window in generateText with the middleware, pruning old tool output', async () => {
    const seen: Seen[] = []
    const { system, messages } = initial()
    const model = wrapLanguageModel({ model: mockModel(seen), middleware: contextMiddleware(options) })
    const result = await generateText({ model, system, messages, tools, stopWhen: stepCountIs(STEPS) })
    expect(result.steps).toHaveLength(STEPS)
    expect(result.text).toBe('The suite passes.')
    expect(historyTokens([{ role: 'system', content: system }, ...messages, ...allResponseMessages(result)])).toBeGreaterThan(2_000_000)
    expectKept(seen, messages)
    const records = recordsOf(result.steps)
    expectRecords(records, seen, false)
    expect(records.every((r) => r.prunedResults > 0)).toBe(true)
  })

  it('stays within the window in streamText with the middleware, compacting when pruning may not touch the output', async () => {
    const seen: Seen[] = []
    const { system, messages } = initial()
    const model = wrapLanguageModel({ model: mockModel(seen), middleware: contextMiddleware({ ...options, pruning: { protectedTools: ['read_log'] } }) })
    const result = streamText({ model, system, messages, tools, stopWhen: stepCountIs(STEPS) })
    expect(await result.text).toBe('The suite passes.')
    const steps = await result.steps
    expect(steps).toHaveLength(STEPS)
    expectKept(seen, messages)
    expectRecords(recordsOf(steps), seen, true)
  })

  it('stays within the window in a ToolLoopAgent with contextPrepareStep', async () => {
    const seen: Seen[] = []
    const { system, messages } = initial()
    const records: ContextRecord[] = []
    const agent = new ToolLoopAgent({
      model: mockModel(seen),
      instructions: system,
      tools,
      stopWhen: stepCountIs(STEPS),
      prepareStep: contextPrepareStep({ ...options, pruning: 'off', system, tools: [READ_LOG], onRecord: (r) => records.push(r) }),
    })
    const result = await agent.generate({ messages })
    expect(result.steps).toHaveLength(STEPS)
    expectKept(seen, messages)
    if ('responseMessages' in result) {
      // ai 7: the messages prepareStep returns carry forward to later steps, so a step starts from the
      // history as the previous compaction left it, and only the steps over the limit again change it
      expect(compactions(records).length).toBeGreaterThan(3)
      for (const r of records) expect(r.tokensAfter).toBeLessThanOrEqual(LIMIT)
    } else expectRecords(records, seen, true)
  })
})
