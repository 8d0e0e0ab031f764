/**
 * The `chatfold` command: `stats`, `prune`, `compact`, `render`, `convert`, `check`, `formats`, `serve` and `repair-store` on
 * history files in any format chatfold reads (see `src/sessions/input-formats.ts`). Each command is one entry of
 * `COMMANDS`, whose options are declared here and whose work lives in a module of its own, imported
 * only when the command runs: `chatfold --version` loads commander and nothing of chatfold, and a
 * command loads what it uses (the tokenizer's tables only when it counts).
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
import type { EncodingName } from '../tokenizer/load.ts'
import { wireApis } from '../adapters/vocabulary.ts'
import type { RenderFormat } from './_render.ts'
import type { CliIO } from './_progress.ts'
import { CliError, EXIT } from './_exit.ts'
import type { Common } from './_common.ts'
import { repairStoreCommand, serveCommand } from './_serve.ts'

export { EXIT } from './_exit.ts'
export type { CliIO } from './_progress.ts'

// --- option parsers ---

const count = (name: string) => (v: string): number => {
  const n = Number(v.replace(/_/g, ''))
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a whole number ≥ 0, got ${v}`)
  return n
}
const ratio = (name: string) => (v: string): number => {
  const n = Number(v)
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a number > 0, got ${v}`)
  return n
}
/** The encodings of `--encoding` (`EncodingName`, listed here so that the program loads no codec to check one). */
const ENCODINGS = ['o200k_base', 'cl100k_base', 'heuristic'] as const satisfies ReadonlyArray<EncodingName>
type Every<A extends readonly string[], U extends string> = [U] extends [A[number]] ? A : never
const encodings: Every<typeof ENCODINGS, EncodingName> = ENCODINGS
const encoding = (v: string): EncodingName => {
  const e = encodings.find((x) => x === v)
  if (e === undefined) throw new InvalidArgumentError(`encoding must be one of ${encodings.join(', ')}, got ${v}`)
  return e
}
/** The formats of `render --format` (`RENDER_FORMATS`, listed here so that the program loads no renderer to offer them). */
const RENDER_FORMATS = ['markdown', 'text', 'transcript', 'html'] as const satisfies ReadonlyArray<RenderFormat>
const renderFormats: Every<typeof RENDER_FORMATS, RenderFormat> = RENDER_FORMATS
const list = (v: string): string[] => v.split(',').map((s) => s.trim()).filter((s) => s !== '')

/** Options every command has. The format names are checked when the file is read (their table loads with the readers). */
const common = (c: Command): Command =>
  c
    .option('--from <format>', 'input format, detected when not given (chatfold formats lists them)')
    .option(
      '--skip-bad-lines',
      'JSON lines input: leave out lines that are not JSON or not records of the format, and list them on stderr (and in --json output)',
    )
    .option('--json', 'machine-readable output (JSON)')
    .option('--progress', 'show a progress bar on stderr even when it is not a terminal')
    .option('--all-branches', 'Claude Code: also read abandoned branches, after the active one, as display messages')
    .addOption(
      new Option('--subagents <mode>', 'Claude Code: sub-agent runs inline (display messages after their Task call) or omitted').choices(['inline', 'omit'])
        .default('inline'),
    )

const encodingOption = (c: Command): Command =>
  c.option('--encoding <name>', 'token encoding: o200k_base, cl100k_base or heuristic', encoding, 'o200k_base' as EncodingName)
const output = (c: Command): Command => c.option('-o, --output <file>', 'write here instead of stdout')

// --- commands ---

type CommandDef = (program: Command, io: CliIO) => void

const stats: CommandDef = (program, io) =>
  encodingOption(
    common(
      program.command('stats').argument('<file>', 'history file').description(
        'messages by role and kind, tokens by kind, the largest messages, tool-pair problems, and the usage recorded per model next to the estimate',
      ),
    ),
  )
    .option('--top <n>', 'how many of the largest messages to list', count('top'), 5)
    .option('--cost', 'also the cost of the usage recorded, by model and by day (every branch and the archive, as billed)')
    .option('--prices <file>', 'with --cost: a JSON list of price rows that replace or add to the built-in table')
    .action(async (file: string, o: Common & { readonly encoding: EncodingName; readonly top: number; readonly cost?: boolean; readonly prices?: string }) =>
      (await import('./_stats.ts')).statsCommand(io, file, o)
    )

const prune: CommandDef = (program, io) =>
  output(
    encodingOption(
      common(
        program.command('prune').argument('<file>', 'history file').description(
          'replace old tool results and large arguments by placeholders (pruneToolResults); writes JSONL',
        ),
      ),
    ),
  )
    .option('--protect-tokens <n>', 'the newest messages worth this many tokens are never touched', count('protect-tokens'), 40_000)
    .option('--minimum-savings <n>', 'prune nothing unless this many tokens would be freed', count('minimum-savings'), 20_000)
    .option('--arg-threshold <n>', 'cut tool-call arguments above this many tokens', count('arg-threshold'), 2_000)
    .option('--protected-tools <names>', 'comma-separated tool names never pruned', list, [] as string[])
    .action(async (file: string, o: import('./_edit.ts').PruneFlags) => (await import('./_edit.ts')).pruneCommand(io, file, o))

const compactCmd: CommandDef = (program, io) =>
  output(
    encodingOption(
      common(
        program.command('compact').argument('<file>', 'history file').description(
          'summarise the head of the history and keep its recent tail (compact, with the offline extractive summariser); writes JSONL',
        ),
      ),
    ),
  )
    .option('--keep-recent-tokens <n>', 'budget of the recent tail kept verbatim', count('keep-recent-tokens'), 20_000)
    .option('--max-result-len <n>', 'cut tool results in the transcript to this many characters', count('max-result-len'), 2_000)
    .addOption(new Option('--boundary <where>', 'where the kept tail may start').choices(['turn', 'message']).default('turn'))
    .option('--archive <file>', 'also write the messages the new history no longer has (JSONL)')
    .option(
      '--context-window <n>',
      'compact only when the context (the last usage the file records plus the estimate since) leaves less than --reserve-tokens of this window, and fit the whole request in it',
      count('context-window'),
    )
    .option('--reserve-tokens <n>', 'with --context-window: tokens to keep free for the answer and the next results', count('reserve-tokens'), 0)
    .option(
      '--fixed-tokens <n>',
      'with --context-window: tokens the requests carry outside the history (system prompt, tool definitions); by default what the last recorded usage implies, else 0',
      count('fixed-tokens'),
    )
    .option(
      '--calibration <ratio>',
      "with --context-window: the provider's tokens per estimated token (1.25 for Claude, 1.1 for Gemini), applied to what is estimated",
      ratio('calibration'),
    )
    .action(async (file: string, o: import('./_edit.ts').CompactFlags) => (await import('./_edit.ts')).compactCommand(io, file, o))

const renderCmd: CommandDef = (program, io) =>
  output(
    common(
      program.command('render').argument('<file>', 'history file').description(
        'render the history as Markdown, plain text, a compaction transcript or one self-contained HTML page',
      ),
    ),
  )
    .addOption(new Option('--format <format>', 'output format').choices(renderFormats).default('markdown'))
    .addOption(new Option('--reasoning <what>', 'show reasoning (markdown)').choices(['omit', 'include']).default('omit'))
    .option('--max-result-len <n>', 'cut tool results to this many characters (transcript)', count('max-result-len'), 2_000)
    .option('--last <n>', 'only the last n turns (a turn: a user message and what follows it)', count('last'))
    .option('--title <text>', 'the page title (html; the file name by default)')
    .action(async (file: string, o: import('./_render.ts').RenderFlags) => (await import('./_render.ts')).renderCommand(io, file, o))

const convert: CommandDef = (program, io) =>
  output(
    common(
      program.command('convert').argument('<file>', 'history file').description(
        'convert the history to a provider request body, AI SDK messages or chatfold JSONL',
      ),
    ),
  )
    .addOption(new Option('--to <format>', 'output format (chatfold formats lists them)').makeOptionMandatory())
    .option('--repair', 'repair tool calls and results that do not pair up instead of refusing')
    .addOption(new Option('--foreign-reasoning <what>', 'reasoning the target cannot verify').choices(['drop', 'text']).default('drop'))
    .option('--model <model>', 'the model the request goes to (reasoning of another model is foreign)')
    .option('--archive <file>', 'also write the messages a compaction recorded in the input replaced (JSONL)')
    .action(async (file: string, o: import('./_convert.ts').ConvertFlags) => (await import('./_convert.ts')).convertCommand(io, file, o))

const check: CommandDef = (program, io) =>
  common(
    program.command('check').argument('<file>', 'request body or history file').description(
      "check a request body, or a history, against a provider's request rules",
    ),
  )
    .addOption(new Option('--provider <name>', "the provider whose rules apply (a request body's is told from its shape)").choices([...wireApis]))
    .option('--model <model>', 'the model the request goes to (Gemini 3 has its own signature rule)')
    .action(async (file: string, o: import('./_convert.ts').CheckFlags) => (await import('./_convert.ts')).checkCommand(io, file, o))

/** `formats`: the names `--from` and `--to` take, each with what it is. */
const formats: CommandDef = (program, io) =>
  program
    .command('formats')
    .description('list the input formats (--from) and output formats (convert --to)')
    .option('--json', 'machine-readable output (JSON)')
    .action(async (o: { readonly json?: boolean }) => {
      const [{ INPUT_FORMATS }, { OUTPUT_FORMATS }] = await Promise.all([import('../sessions/input-formats.ts'), import('./formats.ts')])
      const named = (fs: ReadonlyArray<{ readonly name: string; readonly description: string }>) =>
        fs.map((f) => ({ name: f.name, description: f.description }))
      if (o.json === true) return io.out(`${JSON.stringify({ input: named(INPUT_FORMATS), output: named(OUTPUT_FORMATS) }, null, 2)}\n`)
      const width = Math.max(...[...INPUT_FORMATS, ...OUTPUT_FORMATS].map((f) => f.name.length))
      const lines = (fs: ReadonlyArray<{ readonly name: string; readonly description: string }>) => fs.map((f) => `  ${f.name.padEnd(width)}  ${f.description}`)
      io.out(
        [
          'input formats (--from; detected in this order when not given):',
          ...lines(INPUT_FORMATS),
          'output formats (convert --to):',
          ...lines(OUTPUT_FORMATS),
          '',
        ].join('\n'),
      )
    })

/** Every command of the program, in the order `--help` lists them. */
export const COMMANDS: ReadonlyArray<CommandDef> = [stats, prune, compactCmd, renderCmd, convert, check, formats]

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
  // made on their own, they take the program's settings (exit override, output, help after an error): a bad value is a usage error, exit 2
  for (const command of [serveCommand(), repairStoreCommand(io)]) program.addCommand(command.copyInheritedSettings(program))
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
    if (e instanceof CliError) {
      if (e.message !== '') io.err(`chatfold: ${e.message}\n`)
      return e.code
    }
    // one line, unless asked for the stack
    const message = e instanceof Error ? e.message : String(e)
    io.err(
      debug && e instanceof Error && e.stack !== undefined
        ? `chatfold: ${e.stack}\n`
        : `chatfold: ${message.split('\n')[0] ?? ''} (an unforeseen failure: --debug prints its stack)\n`,
    )
    return EXIT.internal
  }
}
