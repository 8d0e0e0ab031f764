/**
 * The history core on the 20,000-message coding-agent history: every view and edit, tool-pair
 * validation, and `pruneToolResultsWithReport` next to the peers a user would pick instead, the
 * Vercel AI SDK's `pruneMessages` and LangChain.js's `trimMessages`, on the same history in the
 * same run. Conversions to the peers' message formats happen before timing.
 */
import { type AssistantModelMessage, pruneMessages, type ModelMessage } from 'ai'
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from '@langchain/core/messages'
import type { Message, Messages } from '../../src/message.ts'
import { textContent } from '../../src/message.ts'
import { forCompaction, forDisplay, forExport, forExportStructured, forLLM, forPreservation, forSave, withoutEphemeral, withoutInternal, withoutSynthetic, withoutThinking } from '../../src/messages/views.ts'
import { append, at, clear, deduplicateSystem, dropN, ejectEphemeral, ejectSynthetic, keepFirstByRole, last, pruneEmptyAssistant, trimDuplicateSynthetics, truncated, truncateResults } from '../../src/messages/edit.ts'
import { repairToolPairs, validateToolPairs } from '../../src/messages/pairs.ts'
import { pruneToolResultsWithReport } from '../../src/messages/prune.ts'
import { forTranscript, render, renderMarkdown } from '../../src/messages/render.ts'
import { exportJSONL, exportMessages, totalTokens } from '../../src/messages/codec.ts'
import { benchHistory, measure, ms, ratio, table } from './lib.ts'

const PROTECT = 40_000

/**
 * `f` with its result dropped inside the timed call. `measure` awaits what the timed call returns,
 * and the awaited value can stay reachable from `measure`'s suspended frame until the next run
 * returns, so each run's output would live through the next run and be copied by its young
 * collections: a cost of the harness, growing with the size of what a function returns, that a
 * caller does not pay. Every row here, the peers' included, is timed this way.
 */
const dropped =
  (f: () => unknown) =>
  async (): Promise<void> => {
    await f()
  }

// --- token counts, cached by message identity (as tokens.ts does) ---

const quarter = (s: string): number => Math.ceil(s.length / 4)
const cache = new WeakMap<Message, number>()
const count = (m: Message): number => {
  let c = cache.get(m)
  if (c === undefined) {
    c = 0
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'reasoning') c += quarter(p.text)
      else if (p.type === 'tool_call') c += quarter(p.name + p.arguments)
      else if (p.type === 'tool_result') c += quarter(p.content)
    }
    cache.set(m, c)
  }
  return c
}

/** How many of the newest messages the protected window holds (so peers keep the same tail). */
const protectedTail = (h: Messages): number => {
  let after = 0
  let i = h.length
  while (i > 0 && after < PROTECT) after += count(h[--i] as Message)
  return h.length - i
}

// --- peers' formats ---

const toModelMessages = (h: Messages): ModelMessage[] =>
  h.map((m): ModelMessage => {
    switch (m.role) {
      case 'system':
        return { role: 'system', content: textContent(m) }
      case 'user':
        return { role: 'user', content: textContent(m) }
      case 'assistant': {
        const content: Exclude<AssistantModelMessage['content'], string> = []
        for (const p of m.parts) {
          if (p.type === 'text') content.push({ type: 'text', text: p.text })
          else if (p.type === 'reasoning') content.push({ type: 'reasoning', text: p.text })
          else if (p.type === 'tool_call') content.push({ type: 'tool-call', toolCallId: p.id, toolName: p.name, input: JSON.parse(p.arguments) as unknown })
        }
        return { role: 'assistant', content }
      }
      case 'tool':
        return {
          role: 'tool',
          content: m.parts.flatMap((p) =>
            p.type === 'tool_result' ? [{ type: 'tool-result' as const, toolCallId: p.toolCallId, toolName: p.name ?? '', output: { type: 'text' as const, value: p.content } }] : [],
          ),
        }
    }
  })

const toLangChain = (h: Messages): BaseMessage[] =>
  h.map((m) => {
    switch (m.role) {
      case 'system':
        return new SystemMessage(textContent(m))
      case 'user':
        return new HumanMessage(textContent(m))
      case 'assistant':
        return new AIMessage({
          content: textContent(m),
          tool_calls: m.parts.flatMap((p) => (p.type === 'tool_call' ? [{ id: p.id, name: p.name, args: JSON.parse(p.arguments) as Record<string, unknown>, type: 'tool_call' as const }] : [])),
        })
      case 'tool': {
        const r = m.parts.find((p) => p.type === 'tool_result')
        return new ToolMessage({ content: r?.type === 'tool_result' ? r.content : '', tool_call_id: r?.type === 'tool_result' ? r.toolCallId : '' })
      }
    }
  })

/** LangChain calls its counter on whole arrays (and on fresh copies of the messages), so it counts content length. */
const lcCount = (list: BaseMessage[]): number => {
  let t = 0
  for (const m of list) t += quarter(typeof m.content === 'string' ? m.content : '')
  return t
}

export default async function historyBench(): Promise<void> {
  const h = benchHistory()
  const one: ReadonlyArray<Message> = [{ id: 'new', role: 'user', kind: 'normal', parts: [{ type: 'text', text: 'next' }] }]

  const fns: ReadonlyArray<readonly [string, (ms: Messages) => unknown]> = [
    ['forLLM', forLLM],
    ['forDisplay', forDisplay],
    ['forExport', forExport],
    ['forExportStructured', forExportStructured],
    ['forSave', forSave],
    ['forPreservation', forPreservation],
    ['forCompaction(2000)', forCompaction(2000)],
    ['withoutEphemeral', withoutEphemeral],
    ['withoutInternal', withoutInternal],
    ['withoutSynthetic', withoutSynthetic],
    ['withoutThinking', withoutThinking],
    ['append(1)', append(one)],
    ['clear', clear],
    ['dropN(10)', dropN(10)],
    ['keepFirstByRole(user)', keepFirstByRole('user')],
    ['deduplicateSystem', deduplicateSystem],
    ['last', last],
    ['at(10000)', at(10_000)],
    ['pruneEmptyAssistant', pruneEmptyAssistant],
    ['trimDuplicateSynthetics', trimDuplicateSynthetics],
    ['ejectEphemeral', ejectEphemeral],
    ['ejectSynthetic', ejectSynthetic],
    ['truncateResults(2000)', truncateResults(2000)],
    ['truncated(2000)', truncated(2000)],
    ['validateToolPairs', validateToolPairs],
    ['repairToolPairs (valid input)', repairToolPairs],
  ]
  const rows: string[][] = []
  for (const [name, f] of fns) {
    const s = await measure(dropped(() => f(h)), { runs: 21, warmup: 5 })
    rows.push([name, ms(s.median), ms(s.p95), s.median <= 5 ? 'yes' : 'NO'])
  }
  table(`history views and edits (${h.length} messages)`, ['function', 'median ms', 'p95 ms', 'median ≤ 5 ms'], rows)

  // pruning: the count cache is warmed on the input first (a live session has counted every message already)
  for (const m of h) count(m)
  const tail = protectedTail(h)
  const opts = { protectTokens: PROTECT, count }
  const prune = pruneToolResultsWithReport(opts)
  const { report } = prune(h)
  const cold = await measure(dropped(() => pruneToolResultsWithReport(opts)(h)), { runs: 21, warmup: 5 })
  const warm = await measure(dropped(() => prune(h)), { runs: 21, warmup: 5 })
  const nextTurn = [...h, ...one]
  const turn = await measure(dropped(() => prune(nextTurn)), { runs: 21, warmup: 1 })

  const model = toModelMessages(h)
  const ai = await measure(dropped(() => pruneMessages({ messages: model, toolCalls: `before-last-${tail}-messages`, reasoning: 'none', emptyMessages: 'keep' })), { runs: 21, warmup: 5 })

  const lc = toLangChain(h)
  const lang = await measure(dropped(() => trimMessages(lc, { maxTokens: PROTECT, strategy: 'last', tokenCounter: lcCount, includeSystem: true })), { runs: 3, warmup: 0 })

  table(
    `pruning old tool output (${h.length} messages, protect ${PROTECT} tokens = the newest ${tail} messages; ${report.prunedResults} results pruned, ${report.tokensBefore} → ${report.tokensAfter} tokens)`,
    ['function', 'median ms', 'p95 ms', 'vs ai pruneMessages', 'vs LangChain trimMessages'],
    [
      ['chatfold pruneToolResultsWithReport, first prune (a new pruner each run)', ms(cold.median), ms(cold.p95), ratio(ai.median, cold.median), ratio(lang.median, cold.median)],
      ['chatfold pruneToolResultsWithReport, again (same pruner, same history)', ms(warm.median), ms(warm.p95), ratio(ai.median, warm.median), ratio(lang.median, warm.median)],
      ['chatfold pruneToolResultsWithReport, next turn (same pruner, +1 message)', ms(turn.median), ms(turn.p95), ratio(ai.median, turn.median), ratio(lang.median, turn.median)],
      [`ai pruneMessages (toolCalls: before-last-${tail}-messages)`, ms(ai.median), ms(ai.p95), '', ''],
      [`@langchain/core trimMessages (maxTokens ${PROTECT}, strategy last; ${lang.runs} runs)`, ms(lang.median), ms(lang.p95), '', ''],
    ],
  )
  console.log('\n(ratios: peer median ÷ ours; above 1× means chatfold is faster)')

  const out: string[][] = []
  for (const [name, f] of [
    ['render', render],
    ['renderMarkdown', renderMarkdown],
    ['forCompaction(2000) then forTranscript each', (ms: Messages) => forCompaction(2000)(ms).map(forTranscript).join('\n')],
    ['exportMessages', exportMessages],
    ['exportJSONL', exportJSONL],
    ['totalTokens', totalTokens],
  ] as ReadonlyArray<readonly [string, (ms: Messages) => unknown]>) {
    const s = await measure(dropped(() => f(h)), { runs: 5, warmup: 1 })
    out.push([name, ms(s.median), ms(s.p95)])
  }
  table(`rendering and export (${h.length} messages, about 60 MB of content)`, ['function', 'median ms', 'p95 ms'], out)
}
