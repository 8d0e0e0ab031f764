/**
 * `chatfold prune` and `chatfold compact`: a new history, written as chatfold JSONL, and a report
 * on stderr (with `--json`, the report and its itemised receipt).
 *
 * @module
 */
import { isInternal } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import { type EncodingName, loadEstimator } from '../tokenizer/load.ts'
import { countMessage } from '../tokens/count.ts'
import { totalOf } from '../tokens/message-tokens.ts'
import { type ContextTokens, contextTokens } from '../tokens/usage.ts'
import { pruneToolResultsWithReceipt } from '../history/prune.ts'
import { toJSONL } from '../history/codec.ts'
import { compact } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import { loadHistory, loadOptions, notes, readReport, writeText } from './_load.ts'
import { type CliIO, progressBar } from './_progress.ts'
import { type Common, showProgress } from './_common.ts'
import { grouped } from '../internal/number.ts'

/** The options of `prune`. */
export type PruneFlags = Common & {
  readonly encoding: EncodingName
  readonly protectTokens: number
  readonly minimumSavings: number
  readonly argThreshold: number
  readonly protectedTools: ReadonlyArray<string>
}

/** `chatfold prune FILE`: old tool results and large arguments replaced by placeholders. */
export const pruneCommand = async (io: CliIO, file: string, o: PruneFlags): Promise<void> => {
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const estimate = await loadEstimator(o.encoding)
  const r = pruneToolResultsWithReceipt({
    protectTokens: o.protectTokens,
    minimumSavings: o.minimumSavings,
    argThreshold: o.argThreshold,
    protectedTools: o.protectedTools,
    estimate,
  })(h.messages)
  await writeText(o.output, toJSONL(r.messages), io.out)
  const rep = r.report
  io.err(
    o.json === true
      ? `${JSON.stringify({ ...rep, receipt: r.receipt, ...readReport(h) })}\n`
      : `pruned ${rep.prunedResults} results and ${rep.prunedArgs} arguments: ${grouped(rep.tokensBefore)} → ${
        grouped(rep.tokensAfter)
      } tokens (${o.encoding})\n`,
  )
}

/** The options of `compact`. */
export type CompactFlags = Common & {
  readonly encoding: EncodingName
  readonly keepRecentTokens: number
  readonly maxResultLen: number
  readonly boundary: 'turn' | 'message'
  readonly archive?: string
  readonly contextWindow?: number
  readonly reserveTokens?: number
  readonly fixedTokens?: number
  readonly calibration?: number
}

/**
 * Whether to compact, by `shouldCompact`'s rule, and why: the anchored context against the limit,
 * and the estimate of the whole history (`estimate`: calibrated, with the fixed tokens given), which
 * a lower report does not bring down.
 */
type Decision = { readonly compact: boolean; readonly limit: number; readonly context: ContextTokens; readonly estimate: number }

const decide = (o: CompactFlags & { readonly contextWindow: number }, count: (m: Message) => number, ms: Messages): Decision => {
  const limit = o.contextWindow - (o.reserveTokens ?? 0)
  const context = contextTokens({
    count,
    ...(o.fixedTokens === undefined ? {} : { fixedTokens: o.fixedTokens }),
    ...(o.calibration === undefined ? {} : { calibration: o.calibration }),
  })(ms)
  let sum = 0
  for (const m of ms) if (!isInternal(m)) sum += count(m)
  const estimate = Math.round(sum * (o.calibration ?? 1)) + (o.fixedTokens ?? 0)
  return { compact: context.total > limit || estimate > limit, limit, context, estimate }
}

/**
 * The tokens a request carried outside the history, as the last recorded report implies them: the
 * reported context less the (calibrated) estimate of the messages up to the reported one. What a
 * file does not hold (a client's system prompt and tool definitions) is in every report.
 */
const impliedFixed = (c: ContextTokens, count: (m: Message) => number, calibration: number, ms: Messages): number => {
  if (c.anchor === undefined) return 0
  let sum = 0
  for (const m of ms) {
    if (!isInternal(m)) sum += count(m)
    if (m.id === c.anchor) break
  }
  return Math.max(0, c.reported - Math.round(sum * calibration))
}

/** The decision in words: the figure, where it comes from, and the limit it was held against. */
const because = (d: Decision, o: CompactFlags & { readonly contextWindow: number }, encoding: string): string => {
  const c = d.context
  const figure = c.anchor === undefined
    ? `${grouped(c.estimated)} estimated (${encoding}${o.calibration === undefined ? '' : ` × ${o.calibration}`}; no usage recorded to anchor it)${
      c.fixed > 0 ? ` + ${grouped(c.fixed)} fixed` : ''
    }`
    : `${grouped(c.reported)} reported at ${c.anchor} + ${grouped(c.estimated)} estimated since (${encoding}${
      o.calibration === undefined ? '' : ` × ${o.calibration}`
    })`
  const window = `${grouped(d.limit)} (window ${grouped(o.contextWindow)} − reserve ${grouped(o.reserveTokens ?? 0)})`
  if (d.compact && c.total <= d.limit)
    return `the context is ${grouped(c.total)} tokens (${figure}), within ${window}, but the estimate of the whole history is ${
      grouped(d.estimate)
    }, over it (a report lower than the estimate does not lower it)`
  return `the context is ${grouped(c.total)} tokens (${figure}), ${d.compact ? 'over' : 'within'} ${window}`
}

/** `chatfold compact FILE`: the head summarised (offline, extractive), the recent tail kept. */
export const compactCommand = async (io: CliIO, file: string, o: CompactFlags): Promise<void> => {
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const estimate = await loadEstimator(o.encoding)
  const count = totalOf(countMessage(estimate))
  const windowed = o.contextWindow === undefined ? undefined : { ...o, contextWindow: o.contextWindow }
  const decision = windowed === undefined ? undefined : decide(windowed, count, h.messages)
  if (windowed !== undefined && decision !== undefined && !decision.compact) {
    // shouldCompact says no: the history is written as it was read
    await writeText(o.output, toJSONL(h.messages), io.out)
    if (o.archive !== undefined) await writeText(o.archive, toJSONL(h.archive), io.out)
    io.err(
      o.json === true ? `${JSON.stringify({ compacted: false, decision, ...readReport(h) })}\n` : `not compacted: ${because(decision, windowed, o.encoding)}\n`,
    )
    return
  }
  const bar = progressBar(io, 'compact', showProgress(io, o))
  const r = await compact({
    summarize: extractiveSummarize,
    keepRecentTokens: o.keepRecentTokens,
    maxResultLen: o.maxResultLen,
    boundary: o.boundary,
    estimate,
    count,
    ...(windowed === undefined || decision === undefined ? {} : {
      contextWindow: windowed.contextWindow,
      reserveTokens: o.reserveTokens ?? 0,
      fixedTokens: o.fixedTokens ?? impliedFixed(decision.context, count, o.calibration ?? 1, h.messages),
      ...(o.calibration === undefined ? {} : { calibration: o.calibration }),
    }),
    onProgress: (p) => bar.update(p.done, p.total, p.stage),
  })(h.messages)
  bar.update(4, 4, 'done')
  bar.end()
  await writeText(o.output, toJSONL(r.messages), io.out)
  // the archive the file held (what a recorded compaction replaced) first, then what this compaction archived
  if (o.archive !== undefined) await writeText(o.archive, toJSONL([...h.archive, ...r.archive]), io.out)
  const rep = r.report
  const fixed = windowed === undefined || decision === undefined
    ? undefined
    : (o.fixedTokens ?? impliedFixed(decision.context, count, o.calibration ?? 1, h.messages))
  const why = windowed === undefined || decision === undefined
    ? ''
    : `compacting: ${because(decision, windowed, o.encoding)}; the request's part outside the history${
      o.fixedTokens === undefined ? ', as the last report implies it,' : ''
    } is ${grouped(fixed ?? 0)}\n`
  io.err(
    o.json === true
      ? `${JSON.stringify({ ...rep, ...(decision === undefined ? {} : { decision: { ...decision, fixedTokens: fixed } }), ...readReport(h) })}\n`
      : why +
        (rep.compacted
          ? `summarised ${rep.summarised} messages into one, kept ${rep.preserved}, archived ${rep.archived}: ${grouped(rep.tokensBefore)} → ${
            grouped(rep.tokensAfter)
          } tokens (${o.encoding})\n`
          : windowed === undefined
          ? `nothing to compact: the history fits in ${grouped(o.keepRecentTokens)} tokens\n`
          : `nothing to compact: the whole history is in the tail the window leaves room for\n`),
  )
}
