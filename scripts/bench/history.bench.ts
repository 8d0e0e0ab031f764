/**
 * The history core on the 20,000-message coding-agent history: every view and edit, tool-pair
 * validation, and `pruneToolResultsWithReport` next to the peers a user would pick instead, the
 * Vercel AI SDK's `pruneMessages` and LangChain.js's `trimMessages`, on the same history in the
 * same run. Conversions to the peers' message formats happen before timing.
 */
import { toolResultText } from '../../src/message/tool-result-content.ts'
import { type AssistantModelMessage, type ModelMessage, pruneMessages } from 'ai'
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from '@langchain/core/messages'
import type { Message, Messages } from '../../src/message/message.ts'
import { textContent } from '../../src/message/accessors.ts'
import {
  forCompaction,
  forDisplay,
  forExport,
  forExportStructured,
  forLLM,
  forPreservation,
  forSave,
  withoutInternal,
  withoutSynthetic,
  withoutThinking,
} from '../../src/history/views.ts'
import {
  append,
  clear,
  deduplicateSystem,
  dropN,
  keepFirstByRole,
  pruneEmptyAssistant,
  trimDuplicateSynthetics,
  truncated,
  truncateResults,
} from '../../src/history/edit.ts'
import { at, last } from '../../src/history/lookup.ts'
import { repairToolPairs, validateToolPairs } from '../../src/history/pairs.ts'
import { createPruner } from '../../src/history/prune-incremental.ts'
import { pruneToolResultsWithReport } from '../../src/history/prune.ts'
import { heuristic } from '../../src/tokens/heuristic.ts'
import { counter } from '../../src/history/prune-changes.ts'
import { render, renderMarkdown, renderTranscriptLines } from '../../src/history/render.ts'
import { exportJSONL, exportMessages } from '../../src/history/export.ts'
import { totalTokens } from '../../src/history/recorded-tokens.ts'
import { benchHistory, measure, ms, ratio, type Stats, table } from './lib.ts'

const PROTECT = 40_000

/**
 * `f` with its result dropped inside the timed call. `measure` awaits what the timed call returns,
 * and the awaited value can stay reachable from `measure`'s suspended frame until the next run
 * returns, so each run's output would live through the next run and be copied by its young
 * collections: a cost of the harness, growing with the size of what a function returns, that a
 * caller does not pay. Every row here, the peers' included, is timed this way.
 */
const dropped = (f: () => unknown) => async (): Promise<void> => {
  await f()
}

// --- token counts: the one definition, with the heuristic estimator, cached as the engine caches it ---

const count = counter(heuristic)
const quarter = heuristic

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
            p.type === 'tool_result'
              ? [{
                type: 'tool-result' as const,
                toolCallId: p.toolCallId,
                toolName: p.name ?? '',
                output: { type: 'text' as const, value: toolResultText(p) },
              }]
              : []
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
          tool_calls: m.parts.flatMap((p) => (p.type === 'tool_call'
            ? [{ id: p.id, name: p.name, args: JSON.parse(p.arguments) as Record<string, unknown>, type: 'tool_call' as const }]
            : [])
          ),
        })
      case 'tool': {
        const r = m.parts.find((p) =>
          p.type === 'tool_result'
        )
        return new ToolMessage({ content: r?.type === 'tool_result' ? toolResultText(r) : '', tool_call_id: r?.type === 'tool_result' ? r.toolCallId : '' })
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
    ['truncateResults(2000)', truncateResults(2000)],
    ['truncated(2000)', truncated(2000)],
    ['validateToolPairs', validateToolPairs],
    ['repairToolPairs (valid input)', repairToolPairs],
  ]
  const rows: string[][] = []
  for (const [name, f] of fns) {
    const s = await measure(dropped(() => f(h)), { runs: 21, warmup: 5 })
    rows.push([name, ms(s.median), ms(s.p95), ms(s.min), s.median <= 5 ? 'yes' : 'NO'])
  }
  // (the fastest run is the least disturbed by other work on a shared machine)
  table(`history views and edits (${h.length} messages)`, ['function', 'median ms', 'p95 ms', 'fastest ms', 'median ≤ 5 ms'], rows)

  // pruning. The machine may be shared: each of our rows is measured in rounds alternating with
  // the AI SDK's pruneMessages, and the ratio is given per round (median, and the range).
  const tail = protectedTail(h)
  const opts = { protectTokens: PROTECT, estimate: heuristic }
  const { report } = pruneToolResultsWithReport(opts)(h)
  const model = toModelMessages(h)
  const ai = () => pruneMessages({ messages: model, toolCalls: `before-last-${tail}-messages`, reasoning: 'none', emptyMessages: 'keep' })
  const kept = createPruner(opts)
  kept.prune(h)
  // a session's turns: each history the last one plus a new message (made before timing)
  const turns: Messages[] = []
  for (let t = 0, cur: Messages = h; t < 100; t++)
    turns.push(cur = [...cur, { id: `n${t}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: `next ${t}` }] }])
  const session = createPruner(opts)
  session.prune(h)
  let turn = 0
  const ours: ReadonlyArray<readonly [string, () => unknown]> = [
    ['pruneToolResultsWithReport, fresh (pure; counts every message by the definition, nothing cached)', () => pruneToolResultsWithReport(opts)(h)],
    ["pruneToolResultsWithReport, fresh, with the engine's cached counter (warm)", () => pruneToolResultsWithReport({ ...opts, count })(h)],
    ['createPruner, first prune (a new pruner each run)', () => createPruner(opts).prune(h)],
    ['createPruner, again (same pruner, same history)', () => kept.prune(h)],
    ['createPruner, next turn (same pruner, +1 message each run)', () => session.prune(turns[turn++ % turns.length] as Messages)],
  ]
  const ROUNDS = 5
  const rows2: string[][] = []
  const aiAll: number[] = []
  for (const [name, f] of ours) {
    const ratios: number[] = []
    const all: number[] = []
    for (let r = 0; r < ROUNDS; r++) {
      const a = await measure(dropped(ai), { runs: 7, warmup: r === 0 ? 3 : 1 })
      const o = await measure(dropped(f), { runs: 7, warmup: r === 0 ? 3 : 1 })
      ratios.push(a.median / o.median)
      all.push(o.median)
      aiAll.push(a.median)
    }
    const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y)
    const med = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)] as number
    const rs = sorted(ratios)
    rows2.push([
      `chatfold ${name}`,
      ms(med(all)),
      ms(Math.max(...all)),
      `${med(ratios).toFixed(1)}×`,
      `${(rs[0] as number).toFixed(1)}–${(rs[rs.length - 1] as number).toFixed(1)}×`,
    ])
  }
  const aiStats: Stats = {
    median: [...aiAll].sort((x, y) => x - y)[Math.floor(aiAll.length / 2)] as number,
    p95: Math.max(...aiAll),
    min: Math.min(...aiAll),
    max: Math.max(...aiAll),
    runs: aiAll.length,
  }
  const lc = toLangChain(h)
  const lang = await measure(dropped(() => trimMessages(lc, { maxTokens: PROTECT, strategy: 'last', tokenCounter: lcCount, includeSystem: true })), {
    runs: 3,
    warmup: 0,
  })

  table(
    `pruning old tool output (${h.length} messages, protect ${PROTECT} tokens = the newest ${tail} messages; ${report.prunedResults} results pruned, ${report.tokensBefore} → ${report.tokensAfter} tokens)`,
    ['function', 'median of round medians ms', 'worst round ms', 'vs ai pruneMessages (median round)', 'vs ai (range over rounds)'],
    [
      ...rows2,
      [`ai pruneMessages (toolCalls: before-last-${tail}-messages), over all rounds`, ms(aiStats.median), ms(aiStats.max), '', ''],
      [
        `@langchain/core trimMessages (maxTokens ${PROTECT}, strategy last; ${lang.runs} runs)`,
        ms(lang.median),
        ms(lang.p95),
        `ours fresh: ${ratio(lang.median, Number.parseFloat(rows2[0]?.[1] ?? 'NaN'))}`,
        '',
      ],
    ],
  )
  console.log(`\n(ratios: peer median ÷ ours, per round of 7 runs each, ${ROUNDS} rounds alternating; above 1× means chatfold is faster)`)

  const out: string[][] = []
  for (
    const [name, f] of [
      ['render', render],
      ['renderMarkdown', renderMarkdown],
      ['forCompaction(2000) then renderTranscriptLines each', (ms: Messages) => forCompaction(2000)(ms).map(renderTranscriptLines).join('\n')],
      ['exportMessages', exportMessages],
      ['exportJSONL', exportJSONL],
      ['totalTokens', totalTokens],
    ] as ReadonlyArray<readonly [string, (ms: Messages) => unknown]>
  ) {
    const s = await measure(dropped(() => f(h)), { runs: 5, warmup: 1 })
    out.push([name, ms(s.median), ms(s.p95)])
  }
  table(`rendering and export (${h.length} messages, about 60 MB of content)`, ['function', 'median ms', 'p95 ms'], out)
}
