/**
 * `npm run bench cost`: what keeping an agent's history within its window costs in input tokens,
 * as providers bill their prompt caches. The loop of cost-loop.ts (200 steps, a tool result of
 * 2,000–20,000 tokens each, a 200,000-token window) runs once per policy; every prompt is
 * captured, and its longest common prefix with the previous prompt (in o200k tokens) is billed:
 *
 * - as Anthropic bills a 5-minute cache: the shared prefix read at 0.1, the rest written at 1.25
 *   (base price 1);
 * - as OpenAI bills the gpt-5 family: a shared prefix of at least 1,024 tokens read at 0.1, in
 *   steps of 128 tokens; the rest at 1, no write premium.
 *
 * The floor of a policy is what the prompts it sent would cost if every edit it made had kept the
 * cache: each message new to the prompt (not in the previous one) written once (1.25, or 1), each
 * message carried over read (0.1). A summariser call is billed as a request that shares the chat's
 * prefix (the previous prompt read from the cache, the instruction and the step's new result
 * written), in the cost and the floor alike. Output tokens are not billed.
 */
import { type ModelMessage, pruneMessages } from 'ai'
import { contextMiddleware } from '../../src/ai-sdk/mod.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import { CLEARED_RESULT } from '../../src/compaction/context-edits.ts'
import { SUMMARY_PROMPT } from '../../src/compaction/summary.ts'
import type { Summarizer } from '../../src/compaction/compact.ts'
import { encode } from 'gpt-tokenizer/encoding/o200k_base'
import { type Capture, type Hook, OUTPUTS, outputText, promptOf, runLoop, sharedPrefix, STEPS, SYSTEM, tokensOf, WINDOW } from './cost-loop.ts'
import { table } from './lib.ts'

// --- the policies ---

/** A summariser that is `extractiveSummarize`, each call recorded at the step it comes in. */
const recorded = (capture: Capture): Summarizer => (transcript) => {
  capture.summaries.push(capture.prompts.length)
  return extractiveSummarize(transcript)
}

type ToolResultRef = { readonly message: number; readonly part: number; readonly tokens: number }

/**
 * Anthropic's `clear_tool_uses_20250919` over a step's messages: when the prompt (system and tools
 * included) passes `trigger` tokens, every tool result but the last `keep` is replaced by a
 * placeholder, oldest first, unless that clears fewer than `clearAtLeast` tokens.
 */
const clearToolUses = (
  ms: ReadonlyArray<ModelMessage>,
  o: { readonly trigger: number; readonly keep: number; readonly clearAtLeast: number },
): ReadonlyArray<ModelMessage> => {
  if (promptOf([{ role: 'system', content: SYSTEM }, ...ms]).total <= o.trigger) return ms
  const refs: ToolResultRef[] = []
  ms.forEach((m, i) => {
    if (m.role !== 'tool') return
    m.content.forEach((p, j) => {
      if (p.type === 'tool-result')
        refs.push({ message: i, part: j, tokens: outputText(p.output) === CLEARED_RESULT ? 0 : tokensOf(outputText(p.output)).length })
    })
  })
  const clear = refs.slice(0, Math.max(0, refs.length - o.keep)).filter((r) => r.tokens > 0)
  if (clear.reduce((a, r) => a + r.tokens, 0) < o.clearAtLeast) return ms
  const out = ms.slice()
  for (const r of clear) {
    const m = out[r.message] as Extract<ModelMessage, { role: 'tool' }>
    out[r.message] = {
      ...m,
      content: m.content.map((p, j) => (j === r.part && p.type === 'tool-result' ? { ...p, output: { type: 'text' as const, value: CLEARED_RESULT } } : p)),
    }
  }
  return out
}

const CLEAR = { trigger: 150_000, keep: 3, clearAtLeast: 30_000 }

/** `clear_tool_uses` with the edited history kept client-side: the next step appends to what was sent. */
const clearKept = (): Hook => {
  let kept: ReadonlyArray<ModelMessage> = []
  let seen = 0
  return {
    prepareStep: ({ messages }) => {
      kept = clearToolUses([...kept, ...messages.slice(seen)], CLEAR)
      seen = messages.length
      return { messages: [...kept] }
    },
  }
}

type Policy = { readonly name: string; readonly hook: (c: Capture) => Hook }

const POLICIES: ReadonlyArray<Policy> = [
  { name: 'no management', hook: () => ({}) },
  {
    name: 'AI SDK pruneMessages, before-last-2-messages (documented)',
    hook: () => ({ prepareStep: ({ messages }) => ({ messages: pruneMessages({ messages, toolCalls: 'before-last-2-messages', emptyMessages: 'remove' }) }) }),
  },
  {
    name: 'AI SDK pruneMessages, before-last-20-messages',
    hook: () => ({ prepareStep: ({ messages }) => ({ messages: pruneMessages({ messages, toolCalls: 'before-last-20-messages', emptyMessages: 'remove' }) }) }),
  },
  {
    name: 'Anthropic clear_tool_uses, whole history each request',
    hook: () => ({ prepareStep: ({ messages }) => ({ messages: [...clearToolUses(messages, CLEAR)] }) }),
  },
  { name: 'Anthropic clear_tool_uses, kept client-side', hook: clearKept },
  {
    name: 'compaction only, at 90% of the window',
    hook: (c) => ({ middleware: contextMiddleware({ contextWindow: WINDOW, reserveTokens: WINDOW / 10, pruning: 'off', summarize: recorded(c) }) }),
  },
  {
    name: 'chatfold contextMiddleware({ contextWindow: 200_000 })',
    hook: (c) => ({ middleware: contextMiddleware({ contextWindow: WINDOW, summarize: recorded(c) }) }),
  },
  {
    name: 'chatfold, batches only at the limit (pruning: { triggerTokens: Infinity, protectTokens: 20_000 })',
    hook: (c) => ({
      middleware: contextMiddleware({
        contextWindow: WINDOW,
        pruning: { triggerTokens: Number.POSITIVE_INFINITY, protectTokens: 20_000 },
        summarize: recorded(c),
      }),
    }),
  },
  {
    name: "chatfold, fresh pruning (pruning: { policy: 'fresh', protectTokens: 40_000 }, the earlier default)",
    hook: (c) => ({
      middleware: contextMiddleware({
        contextWindow: WINDOW,
        pruning: { policy: 'fresh', protectTokens: 40_000, minimumSavings: 20_000 },
        summarize: recorded(c),
      }),
    }),
  },
]

// --- the bill ---

type Rules = { readonly read: number; readonly write: number; readonly cached: (shared: number) => number }
const ANTHROPIC: Rules = { read: 0.1, write: 1.25, cached: (n) => n }
const OPENAI: Rules = { read: 0.1, write: 1, cached: (n) => (n >= 1_024 ? Math.floor(n / 128) * 128 : 0) }
const INSTRUCTION = encode(SUMMARY_PROMPT).length

/** The tokens of `p` whose messages were in `prev` too (each message of `prev` matched once). */
const carried = (prev: ReturnType<typeof promptOf> | undefined, p: ReturnType<typeof promptOf>): number => {
  if (prev === undefined) return 0
  const left = new Map<string, number>()
  for (const k of prev.keys) left.set(k, (left.get(k) ?? 0) + 1)
  let n = 0
  p.keys.forEach((k, i) => {
    const c = left.get(k) ?? 0
    if (c === 0) return
    left.set(k, c - 1)
    n += (p.tokens[i] as ReadonlyArray<number>).length
  })
  return n
}

type Bill = { readonly cost: number; readonly floor: number; readonly hit: number }

const bill = (c: Capture, r: Rules): Bill => {
  let cost = 0
  let floor = 0
  let cachedAll = 0
  let all = 0
  c.prompts.forEach((p, i) => {
    const prev = c.prompts[i - 1]
    const cached = r.cached(sharedPrefix(prev, p))
    cost += r.read * cached + r.write * (p.total - cached)
    const kept = carried(prev, p)
    floor += r.read * kept + r.write * (p.total - kept)
    cachedAll += cached
    all += p.total
  })
  for (const s of c.summaries) {
    const prev = c.prompts[s - 1]
    const read = r.cached(prev?.total ?? 0)
    const written = (prev?.total ?? 0) - read + INSTRUCTION + (OUTPUTS[s - 1]?.tokens ?? 0)
    cost += r.read * read + r.write * written
    floor += r.read * read + r.write * written
  }
  return { cost, floor, hit: all === 0 ? 0 : cachedAll / all }
}

type Row = { readonly name: string; readonly capture: Capture; readonly anthropic: Bill; readonly openai: Bill }

const k = (n: number): string => `${(n / 1000).toFixed(0)}k`
const pct = (x: number): string => `${(x * 100).toFixed(0)}%`
const x2 = (x: number): string => `${x.toFixed(2)}×`

export default async (): Promise<void> => {
  const rows: Row[] = []
  for (const p of POLICIES) {
    const capture: Capture = { prompts: [], summaries: [] }
    await runLoop(p.hook(capture), capture)
    rows.push({ name: p.name, capture, anthropic: bill(capture, ANTHROPIC), openai: bill(capture, OPENAI) })
  }
  const base = rows.find((r) => r.name.startsWith('compaction only')) as Row
  const clear = rows.find((r) => r.name.includes('kept client-side')) as Row
  const stats = (c: Capture) => {
    const edits = c.prompts.filter((p, i) => i > 0 && sharedPrefix(c.prompts[i - 1], p) < (c.prompts[i - 1]?.total ?? 0)).length
    const max = Math.max(...c.prompts.map((p) => p.total))
    const intact = c.prompts.reduce((a, p) => a + p.intact, 0) / c.prompts.length
    const over = c.prompts.filter((p) => p.total > WINDOW).length
    return [String(edits), k(max), k(intact), String(over)]
  }
  const totalOutput = OUTPUTS.reduce((a, o) => a + o.tokens, 0)
  const each = (rules: 'anthropic' | 'openai', extra: boolean) =>
    rows.map((r) => {
      const b = r[rules]
      return [
        r.name,
        x2(b.cost / base[rules].cost),
        x2(b.floor / base[rules].cost),
        x2(b.cost / b.floor),
        ...(rules === 'anthropic' ? [x2(b.cost / clear[rules].cost)] : []),
        pct(b.hit),
        ...(extra ? [String(r.capture.summaries.length), ...stats(r.capture)] : []),
      ]
    })
  const about = `${STEPS} steps, tool results of ${k(Math.min(...OUTPUTS.map((o) => o.tokens)))}–${k(Math.max(...OUTPUTS.map((o) => o.tokens)))} tokens (${
    k(totalOutput)
  } in all), window ${k(WINDOW)}, o200k; cost as a ratio to compaction only`
  table(
    `Input cost, Anthropic 5-minute cache (read 0.1, write 1.25): ${about}`,
    [
      'policy',
      'cost',
      'floor',
      'cost/floor',
      'vs clear kept',
      'cache hit',
      'summaries',
      'cache-breaking edits',
      'max prompt',
      'intact tool output',
      'prompts over window',
    ],
    each('anthropic', true),
  )
  table(`Input cost, OpenAI gpt-5 cache (read 0.1 from 1,024 tokens in steps of 128, no write premium): ${about}`, [
    'policy',
    'cost',
    'floor',
    'cost/floor',
    'cache hit',
  ], each('openai', false))
}
