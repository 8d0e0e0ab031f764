/**
 * The `chatfold` command: `stats`, `prune`, `compact`, `render` and `convert` on history files in any
 * format chatfold reads (see `formats.ts`). Each command is one entry of `COMMANDS`.
 *
 * Exit codes: 0 done; 1 the history has problems the command reports; 2 bad usage; 3 a file that
 * cannot be read or written; 4 input that is not a history in a known format; 5 a damaged store;
 * 6 a store another live server holds; 7 an address the server cannot listen on; 70 an unforeseen
 * failure (see `EXIT`).
 *
 * @module
 */
import { readFileSync } from 'node:fs'
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import * as E from 'fp-ts/Either'
import type { Messages } from '../message.ts'
import { type EncodingName, EncodingNameC, loadEstimator } from '../tokens.ts'
import { pruneToolResultsWithReport } from '../messages/prune.ts'
import { render, renderMarkdownWith } from '../messages/render.ts'
import { toJSONL } from '../messages/codec.ts'
import { buildTranscript } from '../compaction/transcript.ts'
import { compact } from '../compaction/compact.ts'
import { extractiveSummarize } from '../compaction/extractive.ts'
import { checkRequest, formatAdapterError, formatAdapterNote, type RequestProvider, type RequestViolation } from '../adapters/index.ts'
import { type Candidate, detectFormat, INPUT_FORMATS, OUTPUT_FORMATS, outputFormat } from './formats.ts'
import { CliFailure, docOf, EXIT, type Loaded, loadHistory, type LoadOptions, namedFormat, readText, writeText } from './load.ts'
import { repairStoreCommand, serveCommand } from './serve.ts'
import { type CliIO, progressBar } from './progress.ts'
import { formatStats, statsOf } from './stats.ts'

export { EXIT } from './load.ts'
export type { CliIO } from './progress.ts'

// --- option parsers ---

const count = (name: string) => (v: string): number => {
  const n = Number(v.replace(/_/g, ''))
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number ≥ 0, got ${v}`)
  return n
}
const encoding = (v: string): EncodingName => {
  if (!EncodingNameC.is(v)) throw new InvalidArgumentError(`encoding must be one of o200k_base, cl100k_base, heuristic, got ${v}`)
  return v
}
const list = (v: string): string[] => v.split(',').map((s) => s.trim()).filter((s) => s !== '')

type Common = {
  readonly from?: string
  readonly json?: boolean
  readonly progress?: boolean
  readonly output?: string
  readonly skipBadLines?: boolean
  readonly allBranches?: boolean
  readonly subagents?: 'inline' | 'omit'
}

/** How the common options read a history file. */
const loadOptions = (o: Common): LoadOptions => ({ from: o.from, skipBadLines: o.skipBadLines, branches: o.allBranches === true ? 'all' : 'active', subagents: o.subagents ?? 'inline' })

/** Options every command has: the input format, JSON output for scripts, and the progress bar. */
const common = (c: Command): Command =>
  c
    .addOption(new Option('--from <format>', 'input format (detected when not given)').choices(INPUT_FORMATS.map((f) => f.name)))
    .option('--skip-bad-lines', 'JSON lines input: leave out lines that are not JSON or not records of the format, and list them on stderr (and in --json output)')
    .option('--json', 'machine-readable output (JSON)')
    .option('--progress', 'show a progress bar on stderr even when it is not a terminal')
    .option('--all-branches', 'Claude Code: also read abandoned branches, after the active one, as display messages')
    .addOption(new Option('--subagents <mode>', 'Claude Code: sub-agent runs inline (display messages after their Task call) or omitted').choices(['inline', 'omit']).default('inline'))

const encodingOption = (c: Command): Command => c.option('--encoding <name>', 'token encoding: o200k_base, cl100k_base or heuristic', encoding, 'o200k_base' as EncodingName)

const showProgress = (io: CliIO, o: Common): boolean => o.progress === true || io.errIsTTY

/** Reading notes and skipped lines on stderr for a person; with `--json` they go into the JSON report instead. */
const notes = (io: CliIO, file: string, o: Common, h: Pick<Loaded, 'notes' | 'skipped'>): void => {
  if (o.json === true) return
  for (const n of h.notes) io.err(`${file}: ${n}\n`)
  for (const s of h.skipped) io.err(`${file}:${s.line}: skipped: ${s.reason}\n`)
}

/** What reading reported, for a `--json` report: notes, and the lines skipped when there are any. */
const readReport = (h: Pick<Loaded, 'notes' | 'skipped'>): { readonly notes: ReadonlyArray<string>; readonly skipped?: Loaded['skipped'] } => ({
  notes: h.notes,
  ...(h.skipped.length === 0 ? {} : { skipped: h.skipped }),
})

// --- commands ---

type CommandDef = (program: Command, io: CliIO) => void

const stats: CommandDef = (program, io) =>
  encodingOption(common(program.command('stats').argument('<file>', 'history file').description('messages by role and kind, tokens by kind, the largest messages, tool-pair problems')))
    .option('--top <n>', 'how many of the largest messages to list', count('top'), 5)
    .action(async (file: string, o: Common & { readonly encoding: EncodingName; readonly top: number }) => {
      const h = loadHistory(file, loadOptions(o))
      notes(io, file, o, h)
      const estimate = await loadEstimator(o.encoding)
      const bar = progressBar(io, 'count', showProgress(io, o))
      const s = statsOf(estimate, h.messages, h.bytes, o.top, (done) => bar.update(done, h.messages.length))
      bar.end()
      const archived = h.archive.length
      io.out(
        o.json === true
          ? `${JSON.stringify({ file, format: h.format, encoding: o.encoding, ...readReport(h), ...s, archived }, null, 2)}\n`
          : `${formatStats(file, h.format, o.encoding, s)}${archived === 0 ? '' : `\ncompacted: ${archived.toLocaleString('en')} messages before the compaction summary are archived`}\n`,
      )
      if (!s.toolPairs.valid) throw new CliFailure(EXIT.problems, '')
    })

const output = (c: Command): Command => c.option('-o, --output <file>', 'write here instead of stdout')

const prune: CommandDef = (program, io) =>
  output(encodingOption(common(program.command('prune').argument('<file>', 'history file').description('replace old tool results and large arguments by placeholders (pruneToolResults); writes JSONL'))))
    .option('--protect-tokens <n>', 'the newest messages worth this many tokens are never touched', count('protect-tokens'), 40_000)
    .option('--minimum-savings <n>', 'prune nothing unless this many tokens would be freed', count('minimum-savings'), 20_000)
    .option('--arg-threshold <n>', 'cut tool-call arguments above this many tokens', count('arg-threshold'), 2_000)
    .option('--protected-tools <names>', 'comma-separated tool names never pruned', list, [] as string[])
    .action(async (file: string, o: Common & { readonly encoding: EncodingName; readonly protectTokens: number; readonly minimumSavings: number; readonly argThreshold: number; readonly protectedTools: string[] }) => {
      const h = loadHistory(file, loadOptions(o))
      notes(io, file, o, h)
      const estimate = await loadEstimator(o.encoding)
      const r = pruneToolResultsWithReport({ protectTokens: o.protectTokens, minimumSavings: o.minimumSavings, argThreshold: o.argThreshold, protectedTools: o.protectedTools, estimate })(h.messages)
      await writeText(o.output, toJSONL(r.messages), io.out)
      const rep = r.report
      io.err(o.json === true ? `${JSON.stringify({ ...rep, ...readReport(h) })}\n` : `pruned ${rep.prunedResults} results and ${rep.prunedArgs} arguments: ${rep.tokensBefore.toLocaleString('en')} → ${rep.tokensAfter.toLocaleString('en')} tokens (${o.encoding})\n`)
    })

const compactCmd: CommandDef = (program, io) =>
  output(encodingOption(common(program.command('compact').argument('<file>', 'history file').description('summarise the head of the history and keep its recent tail (compact, with the offline extractive summariser); writes JSONL'))))
    .option('--keep-recent-tokens <n>', 'budget of the recent tail kept verbatim', count('keep-recent-tokens'), 20_000)
    .option('--max-result-len <n>', 'cut tool results in the transcript to this many characters', count('max-result-len'), 2_000)
    .addOption(new Option('--boundary <where>', 'where the kept tail may start').choices(['turn', 'message']).default('turn'))
    .option('--archive <file>', 'also write the messages the new history no longer has (JSONL)')
    .action(async (file: string, o: Common & { readonly encoding: EncodingName; readonly keepRecentTokens: number; readonly maxResultLen: number; readonly boundary: 'turn' | 'message'; readonly archive?: string }) => {
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
      if (o.archive !== undefined) await writeText(o.archive, toJSONL([...h.archive, ...r.archive]), io.out)
      const rep = r.report
      io.err(
        o.json === true
          ? `${JSON.stringify({ ...rep, ...readReport(h) })}\n`
          : rep.compacted
            ? `summarised ${rep.summarised} messages into one, kept ${rep.preserved}, archived ${rep.archived}: ${rep.tokensBefore.toLocaleString('en')} → ${rep.tokensAfter.toLocaleString('en')} tokens (${o.encoding})\n`
            : `nothing to compact: the history fits in ${o.keepRecentTokens.toLocaleString('en')} tokens\n`,
      )
    })

const RENDERERS: Readonly<Record<string, (o: { readonly reasoning: 'omit' | 'include'; readonly maxResultLen: number }) => (ms: Messages) => string>> = {
  markdown: (o) => renderMarkdownWith({ reasoning: o.reasoning }),
  text: () => render,
  transcript: (o) => (ms) => `${buildTranscript({ maxResultLen: o.maxResultLen })(ms)}\n`,
}

const renderCmd: CommandDef = (program, io) =>
  output(common(program.command('render').argument('<file>', 'history file').description('render the history as Markdown, plain text or a compaction transcript')))
    .addOption(new Option('--format <format>', 'output format').choices(Object.keys(RENDERERS)).default('markdown'))
    .addOption(new Option('--reasoning <what>', 'show reasoning (markdown)').choices(['omit', 'include']).default('omit'))
    .option('--max-result-len <n>', 'cut tool results to this many characters (transcript)', count('max-result-len'), 2_000)
    .action(async (file: string, o: Common & { readonly format: string; readonly reasoning: 'omit' | 'include'; readonly maxResultLen: number }) => {
      const h = loadHistory(file, loadOptions(o))
      notes(io, file, o, h)
      const text = (RENDERERS[o.format] as (typeof RENDERERS)[string])(o)(h.messages)
      await writeText(o.output, o.json === true ? `${JSON.stringify({ format: o.format, text, ...readReport(h) })}\n` : text, io.out)
    })

/** How many of a conversion's notes `convert` prints one a line; `--json` gives them all. */
const MAX_NOTE_LINES = 20

const convert: CommandDef = (program, io) =>
  output(common(program.command('convert').argument('<file>', 'history file').description('convert the history to a provider request body, AI SDK messages or chatfold JSONL')))
    .addOption(new Option('--to <format>', 'output format').choices(OUTPUT_FORMATS.map((f) => f.name)).makeOptionMandatory())
    .option('--repair', 'repair tool calls and results that do not pair up instead of refusing')
    .addOption(new Option('--foreign-reasoning <what>', 'reasoning the target cannot verify').choices(['drop', 'text']).default('drop'))
    .option('--model <model>', 'the model the request goes to (reasoning of another model is foreign)')
    .option('--archive <file>', 'also write the messages a compaction recorded in the input replaced (JSONL)')
    .action(async (file: string, o: Common & { readonly to: string; readonly repair?: boolean; readonly foreignReasoning: 'drop' | 'text'; readonly model?: string; readonly archive?: string }) => {
      const h = loadHistory(file, loadOptions(o))
      notes(io, file, o, h)
      const target = outputFormat(o.to)
      if (target === undefined) throw new CliFailure(EXIT.usage, `unknown output format ${o.to}`)
      const r = target.write({ repair: o.repair === true ? 'repair' : 'fail', foreignReasoning: o.foreignReasoning, ...(o.model === undefined ? {} : { model: o.model }) })(h.messages)
      if (E.isLeft(r)) throw new CliFailure(EXIT.problems, `cannot convert ${file} to ${o.to}: ${formatAdapterError(r.left)}${r.left.kind === 'invalid_tool_pairs' ? ' (--repair fixes them)' : ''}`)
      await writeText(o.output, r.right.text, io.out)
      if (o.archive !== undefined) await writeText(o.archive, toJSONL(h.archive), io.out)
      const ns = r.right.report?.notes ?? []
      if (o.json === true) io.err(`${JSON.stringify({ read: h.notes, ...(h.skipped.length === 0 ? {} : { skipped: h.skipped }), archived: h.archive.length, notes: ns, ...(r.right.report?.repair === undefined ? {} : { repair: r.right.report.repair }) })}\n`)
      else if (ns.length > 0) {
        io.err(`${file}: ${ns.length} note${ns.length === 1 ? '' : 's'} from the conversion:\n`)
        for (const n of ns.slice(0, MAX_NOTE_LINES)) io.err(`  ${formatAdapterNote(n)}\n`)
        if (ns.length > MAX_NOTE_LINES) io.err(`  … and ${ns.length - MAX_NOTE_LINES} more (--json lists them all)\n`)
      }
    })

const PROVIDERS: ReadonlyArray<RequestProvider> = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ai-sdk']

const isProvider = (name: string): name is RequestProvider => (PROVIDERS as ReadonlyArray<string>).includes(name)
const FIELD: Readonly<Record<RequestProvider, string>> = { 'openai-chat': 'messages', 'openai-responses': 'input', anthropic: 'messages', gemini: 'contents', 'ai-sdk': 'messages' }

type CheckOptions = Common & { readonly provider?: RequestProvider; readonly model?: string }
type Checked = { readonly provider: RequestProvider; readonly checked: 'request' | 'history'; readonly violations: ReadonlyArray<RequestViolation>; readonly notes: ReadonlyArray<RequestViolation>; readonly detected?: string }

/** A request body checked as it is, by `checkRequest`; the provider is the one its shape shows, or the one named when the shape allows it. */
const checkBody = (file: string, body: unknown, fit: Candidate, o: CheckOptions): Checked => {
  const shape = fit.format.name as RequestProvider
  const named = o.provider
  const hasField = (p: RequestProvider): boolean => Array.isArray(body) ? FIELD[p] === 'messages' : typeof body === 'object' && body !== null && FIELD[p] in body
  if (named !== undefined && named !== shape && (fit.plain !== true || !hasField(named)))
    throw new CliFailure(EXIT.usage, `${file} looks like a ${shape} request body (${fit.why}), not ${named}; check it with --provider ${shape}`)
  const provider = named ?? shape
  const wrapped = Array.isArray(body) ? { [FIELD[provider]]: body } : body
  const withModel = o.model === undefined || (wrapped as Record<string, unknown>)['model'] !== undefined ? wrapped : { ...(wrapped as object), model: o.model }
  return { provider, checked: 'request', violations: checkRequest(provider)(withModel), notes: [], ...(named === undefined ? { detected: fit.why } : {}) }
}

/**
 * `check FILE [--provider P]`: a request body (`{ messages }`, `{ input }`, `{ contents }`, or a
 * message array) is linted as it is, by `checkRequest`, against the provider its shape shows (naming
 * another provider is an error that says which one the shape looks like, unless the body is a plain
 * chat body both accept). A history in any other format is converted with the named provider's
 * adapter: what the adapter fixes by itself (a `request_fixed` note, e.g. a blank text block) is a
 * note, and only what it cannot fix (a violation left in the request, or a conversion it refuses) is
 * an error. Exit 1 when there is an error.
 */
const check: CommandDef = (program, io) =>
  common(program.command('check').argument('<file>', 'request body or history file').description("check a request body, or a history, against a provider's request rules"))
    .addOption(new Option('--provider <name>', "the provider whose rules apply (a request body's is told from its shape)").choices([...PROVIDERS]))
    .option('--model <model>', 'the model the request goes to (Gemini 3 has its own signature rule)')
    .action((file: string, o: CheckOptions) => {
      const text = readText(file)
      const doc = docOf(file, text)
      const fit: Candidate | undefined = o.from !== undefined ? (isProvider(o.from) ? { format: namedFormat(o.from), why: `--from ${o.from}` } : undefined) : E.getOrElseW(() => undefined)(detectFormat(doc))
      let c: Checked
      let h: Pick<Loaded, 'notes' | 'skipped'> = { notes: [], skipped: [] }
      if (fit !== undefined && isProvider(fit.format.name) && doc.kind === 'json') c = checkBody(file, doc.value, fit, o)
      else {
        const loaded = loadHistory(file, loadOptions(o))
        h = loaded
        notes(io, file, o, h)
        if (o.provider === undefined) throw new CliFailure(EXIT.usage, `${file} is a ${loaded.format} history, not a request body: name the provider whose rules apply with --provider`)
        const target = outputFormat(o.provider)
        if (target === undefined) throw new CliFailure(EXIT.usage, `unknown provider ${o.provider}`)
        const r = target.write({ repair: 'fail', ...(o.model === undefined ? {} : { model: o.model }) })(loaded.messages)
        if (E.isLeft(r)) throw new CliFailure(EXIT.problems, `${file}: cannot be sent to ${o.provider}: ${formatAdapterError(r.left)}${r.left.kind === 'invalid_tool_pairs' ? ' (convert --repair fixes them)' : ''}`)
        const fixed = (r.right.report?.notes ?? []).flatMap((n) => (n.kind === 'request_fixed' ? [{ path: n.path, rule: n.rule, message: `the adapter ${n.action} it` }] : []))
        c = { provider: o.provider, checked: 'history', violations: checkRequest(o.provider)(r.right.request), notes: fixed }
      }
      const { provider, checked, violations } = c
      if (o.json === true) io.out(`${JSON.stringify({ file, provider, checked, ...(c.detected === undefined ? {} : { detected: c.detected }), violations, ...(checked === 'history' ? { notes: c.notes, read: h.notes, ...(h.skipped.length === 0 ? {} : { skipped: h.skipped }) } : {}) })}\n`)
      else {
        for (const n of c.notes) io.out(`${file}: note: ${n.path}: ${n.message} (${n.rule})\n`)
        if (violations.length === 0) io.out(`${file}: follows every ${provider} request rule${c.notes.length > 0 ? ` once the adapter applies the ${c.notes.length} fix${c.notes.length === 1 ? '' : 'es'} noted` : ''}${c.detected === undefined ? '' : ` (a ${provider} body: ${c.detected})`}\n`)
        else for (const v of violations) io.out(`${file}: ${v.path}: ${v.message} (${v.rule})\n`)
      }
      if (violations.length > 0) throw new CliFailure(EXIT.problems, o.json === true ? '' : `${violations.length} violation${violations.length === 1 ? '' : 's'} of ${provider}'s request rules`)
    })

/** Every command of the program, in the order `--help` lists them. */
export const COMMANDS: ReadonlyArray<CommandDef> = [
  stats,
  prune,
  compactCmd,
  renderCmd,
  convert,
  check,
]

/** The package's version, from its package.json (two levels up from the sources, three from dist/). */
const version = (): string => {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { readonly name?: string; readonly version?: string }
      if (pkg.name === 'chatfold' && typeof pkg.version === 'string') return pkg.version
    } catch {
      // not this one
    }
  }
  return 'unknown'
}

/** The program, writing through `io`. */
export const createProgram = (io: CliIO): Command => {
  const program = new Command('chatfold')
    .description('Inspect, prune, compact, render and convert LLM conversation histories')
    .version(version())
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(run chatfold --help for usage)')
  for (const def of COMMANDS) def(program, io)
  program.addCommand(serveCommand())
  program.addCommand(repairStoreCommand(io))
  // read by `run` before parsing, so that it counts before or after the command; here for --help
  program.option('--debug', 'print the stack of a failure chatfold did not foresee')
  return program
}

/** Runs the program on arguments (without `node` and the script); resolves to the exit code. */
export const run = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const debug = argv.includes('--debug')
  try {
    await createProgram(io).parseAsync(
      argv.filter((a) => a !== '--debug'),
      { from: 'user' },
    )
    return EXIT.ok
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage
    if (e instanceof CliFailure) {
      if (e.message !== '') io.err(`chatfold: ${e.message}\n`)
      return e.code
    }
    // one line, unless asked for the stack
    const message = e instanceof Error ? e.message : String(e)
    io.err(debug && e instanceof Error && e.stack !== undefined ? `chatfold: ${e.stack}\n` : `chatfold: ${message.split('\n')[0] ?? ''} (an unforeseen failure: --debug prints its stack)\n`)
    return EXIT.internal
  }
}
