/**
 * `chatfold prune` and `chatfold compact`: a new history, written as chatfold JSONL, and a report
 * on stderr.
 *
 * @module
 */
import type { EncodingName } from '../tokens.ts'
import { loadEstimator } from '../tokens.ts'
import { pruneToolResultsWithReport } from '../messages/prune.ts'
import { toJSONL } from '../messages/codec.ts'
import { compact } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import { loadHistory, loadOptions, notes, readReport, writeText } from './load.ts'
import { type CliIO, progressBar } from './progress.ts'
import { type Common, grouped, showProgress } from './shared.ts'

/** The options of `prune`. */
export type PruneFlags = Common & { readonly encoding: EncodingName; readonly protectTokens: number; readonly minimumSavings: number; readonly argThreshold: number; readonly protectedTools: ReadonlyArray<string> }

/** `chatfold prune FILE`: old tool results and large arguments replaced by placeholders. */
export const pruneCommand = async (io: CliIO, file: string, o: PruneFlags): Promise<void> => {
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const estimate = await loadEstimator(o.encoding)
  const r = pruneToolResultsWithReport({ protectTokens: o.protectTokens, minimumSavings: o.minimumSavings, argThreshold: o.argThreshold, protectedTools: o.protectedTools, estimate })(h.messages)
  await writeText(o.output, toJSONL(r.messages), io.out)
  const rep = r.report
  io.err(o.json === true ? `${JSON.stringify({ ...rep, ...readReport(h) })}\n` : `pruned ${rep.prunedResults} results and ${rep.prunedArgs} arguments: ${grouped(rep.tokensBefore)} → ${grouped(rep.tokensAfter)} tokens (${o.encoding})\n`)
}

/** The options of `compact`. */
export type CompactFlags = Common & { readonly encoding: EncodingName; readonly keepRecentTokens: number; readonly maxResultLen: number; readonly boundary: 'turn' | 'message'; readonly archive?: string }

/** `chatfold compact FILE`: the head summarised (offline, extractive), the recent tail kept. */
export const compactCommand = async (io: CliIO, file: string, o: CompactFlags): Promise<void> => {
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const bar = progressBar(io, 'compact', showProgress(io, o))
  const r = await compact({
    summarize: extractiveSummarize,
    keepRecentTokens: o.keepRecentTokens,
    maxResultLen: o.maxResultLen,
    boundary: o.boundary,
    estimate: o.encoding,
    onProgress: (p) => bar.update(p.done, p.total, p.stage),
  })(h.messages)
  bar.update(4, 4, 'done')
  bar.end()
  await writeText(o.output, toJSONL(r.messages), io.out)
  // the archive the file held (what a recorded compaction replaced) first, then what this compaction archived
  if (o.archive !== undefined) await writeText(o.archive, toJSONL([...h.archive, ...r.archive]), io.out)
  const rep = r.report
  io.err(
    o.json === true
      ? `${JSON.stringify({ ...rep, ...readReport(h) })}\n`
      : rep.compacted
        ? `summarised ${rep.summarised} messages into one, kept ${rep.preserved}, archived ${rep.archived}: ${grouped(rep.tokensBefore)} → ${grouped(rep.tokensAfter)} tokens (${o.encoding})\n`
        : `nothing to compact: the history fits in ${grouped(o.keepRecentTokens)} tokens\n`,
  )
}
