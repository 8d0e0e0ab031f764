/**
 * Reading a history file for the command line, and the failures it can end with.
 *
 * @module
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import { formatDecodeFailure } from '../message/failure.ts'
import { parseJsonText } from '../internal/json.ts'
import { type Doc, INPUT_FORMATS, type InputFormat, inputFormat, parseDoc } from '../sessions/input-formats.ts'
import { readSessionFile, type SessionFile, type SessionFileFailure, type SessionFileOptions } from '../sessions/session-file.ts'

import { CliError, EXIT } from './_exit.ts'
import type { Common } from './_common.ts'
import type { CliIO } from './_progress.ts'

export { CliError, EXIT } from './_exit.ts'

/** A decode failure as lines naming the file, and the line where the path gives one (`FILE:12: …`). */
export const describeFailure = (file: string, failure: DecodeFailure): string =>
  formatDecodeFailure(failure)
    .split('\n')
    .map((l) => {
      const m = /^line (\d+)(?::\s*|\.|(?=\[))?(.*)$/.exec(l)
      return m === null ? `${file}: ${l}` : `${file}:${m[1]}: ${m[2] === '' ? '' : m[2]}`.replace(/: $/, '')
    })
    .join('\n')

/** Reads a file's text ('-' is stdin); a failure names the file. */
export const readText = (file: string): string => {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8')
  } catch (e) {
    const code = (e as { readonly code?: string }).code
    throw new CliError(EXIT.io, `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`)
  }
}

/**
 * The file a path names for writing: the path itself, or, for a symbolic link, the file it points
 * to (written through, the link kept); a link to nothing is refused.
 */
const writeTarget = (file: string): string => {
  let link = false
  try {
    link = lstatSync(file).isSymbolicLink()
  } catch {
    return file // a new file
  }
  if (!link) return file
  try {
    return realpathSync(file)
  } catch (e) {
    throw new CliError(
      EXIT.io,
      `cannot write ${file}: it is a symbolic link to ${(e as { readonly code?: string }).code === 'ENOENT' ? 'nothing' : 'what cannot be read'}`,
    )
  }
}

/**
 * Writes text to a file, or to stdout when no file is given. The file is written whole or not at
 * all: a temporary file beside it, flushed, then renamed over it, so that a command writing over
 * its own input (`prune h.jsonl -o h.jsonl`) and killed midway leaves the input as it was. A
 * symbolic link is written through: the file it points to is replaced, the link is kept.
 */
export const writeText = async (given: string | undefined, text: string, out: (s: string) => void): Promise<void> => {
  if (given === undefined) return out(text)
  const file = writeTarget(given)
  let special = false
  try {
    special = !statSync(file).isFile()
  } catch {
    // a new file
  }
  try {
    // a device or pipe (`-o /dev/stdout`) is written to, never renamed over
    if (special) return writeFileSync(file, text)
  } catch (e) {
    throw new CliError(EXIT.io, `cannot write ${file}: ${(e as Error).message}`)
  }
  // the atomic writer loads only when a file is written
  const { formatSessionFailure, writeAtomic } = await import('../node/atomic.ts')
  const r = await writeAtomic(file, text)
  if (E.isLeft(r)) throw new CliError(EXIT.io, `cannot write ${file}: ${r.left.kind === 'io' ? r.left.message : formatSessionFailure(r.left)}`)
}

/** A loaded history: what was read, and the name of the format it was read as. */
export type Loaded = SessionFile

/**
 * How a history file is read: the format named with `--from` (detected when not), whether bad JSON
 * lines are skipped, and for a Claude Code session every branch or only the active one, and its
 * sub-agent runs inline or left out.
 */
export type LoadOptions = {
  readonly from?: string | undefined
  readonly skipBadLines?: boolean | undefined
  readonly branches?: 'active' | 'all' | undefined
  readonly subagents?: 'inline' | 'omit' | undefined
}

/** The input format `--from` names, or a usage failure listing the names. */
export const namedFormat = (from: string): InputFormat => {
  const f = inputFormat(from)
  if (f === undefined) throw new CliError(EXIT.usage, `unknown input format ${from}: one of ${INPUT_FORMATS.map((x) => x.name).join(', ')}`)
  return f
}

/** Parses a file's text as one JSON document or JSON lines; a failure names the file and line. */
export const docOf = (file: string, text: string): Doc => {
  const doc = parseDoc(text)
  if (E.isLeft(doc)) {
    throw new CliError(EXIT.input, `${file}:${doc.left.line}: not JSON nor JSON lines: ${doc.left.message}`)
  }
  return doc.right
}

const parseLines = (f: string, text: string): unknown[] => {
  const records: unknown[] = []
  text.split('\n').forEach((l, i) => {
    if (l.trim() === '') return
    const v = parseJsonText(l)
    if (E.isLeft(v)) throw new CliError(EXIT.input, `${f}:${i + 1}: not JSON: ${v.left}`)
    records.push(v.right)
  })
  return records
}

/** The session id a transcript's records name (its first record that has one). */
const sessionIdOf = (records: ReadonlyArray<unknown>): string | undefined => {
  for (const r of records)
    if (typeof r === 'object' && r !== null && typeof (r as Record<string, unknown>)['sessionId'] === 'string')
      return (r as Record<string, string>)['sessionId']
  return undefined
}

/**
 * The records of a Claude Code session's sub-agent transcripts, and the files they came from:
 * `SESSION/subagents/agent-*.jsonl` beside `SESSION.jsonl` (later versions), else the
 * `agent-*.jsonl` files beside it whose records name the session (earlier versions). None for
 * stdin, or for a file that is itself a sub-agent transcript.
 */
const subagentRecords = (file: string): { readonly records: ReadonlyArray<unknown>; readonly files: ReadonlyArray<string> } => {
  const none = { records: [], files: [] }
  if (file === '-' || !file.endsWith('.jsonl') || basename(file).startsWith('agent-')) return none
  const session = basename(file, '.jsonl')
  const nested = join(dirname(file), session, 'subagents')
  const agentFiles = (dir: string): string[] =>
    readdirSync(dir)
      .filter((n) => /^agent-.*\.jsonl$/.test(n))
      .sort()
      .map((n) => join(dir, n))
  if (existsSync(nested)) {
    const files = agentFiles(nested)
    return { records: files.flatMap((f) => parseLines(f, readText(f))), files }
  }
  const records: unknown[] = []
  const files: string[] = []
  for (const f of agentFiles(dirname(file))) {
    const rs = parseLines(f, readText(f))
    if (sessionIdOf(rs) !== session) continue
    records.push(...rs)
    files.push(f)
  }
  return { records, files }
}

/** The files of these names beside a file, parsed (none for stdin); a file there that is not JSON is a failure naming it. */
const besideFiles = (file: string, names: ReadonlyArray<string>): Record<string, unknown> => {
  if (file === '-') return {}
  const out: Record<string, unknown> = {}
  for (const n of names) {
    const f = join(dirname(file), n)
    if (!existsSync(f)) continue
    const v = parseJsonText(readText(f))
    if (E.isLeft(v)) throw new CliError(EXIT.input, `${f}: not JSON: ${v.left}`)
    out[n] = v.right
  }
  return out
}

/** The bytes of a file, or `undefined` when it cannot be read (reading its text then says why). */
const readBytes = (file: string): Uint8Array | undefined => {
  try {
    return new Uint8Array(readFileSync(file))
  } catch {
    return undefined
  }
}

/** What a failure to read a file says on the command line, and its exit code. */
const failed = (file: string, f: SessionFileFailure, o: LoadOptions): CliError => {
  switch (f.kind) {
    case 'unknown-name':
      return new CliError(EXIT.usage, `unknown input format ${f.name}: one of ${f.formats.join(', ')}`)
    case 'not-json':
      return new CliError(EXIT.input, `${file}:${f.line}: not JSON nor JSON lines: ${f.message}`)
    case 'undetected':
      return new CliError(EXIT.input, `${file}: cannot tell the format; name it with --from (one of ${f.formats.join(', ')}): ${f.reason}`)
    case 'zip':
      return new CliError(EXIT.input, `cannot read ${file} as a chat export's zip:\n${describeFailure(file, f.failure)}`)
    case 'unreadable':
      return new CliError(
        EXIT.input,
        `cannot read ${file} as ${f.format}:\n${describeFailure(file, f.failure)}${
          f.byLine && o.skipBadLines !== true ? '\n(--skip-bad-lines reads the other lines and lists those it leaves out)' : ''
        }`,
      )
  }
}

/**
 * What is read beside a file of a format: a Claude Code session's sub-agent transcripts (unless
 * left out), a Cline task's `ui_messages.json`; a note for each.
 */
const besideOf = (file: string, o: LoadOptions) => (format: string): ReturnType<NonNullable<SessionFileOptions['beside']>> => {
  const extra = format === 'claude-code' && o.subagents !== 'omit' ? subagentRecords(file) : { records: [], files: [] }
  const files = format === 'cline' ? besideFiles(file, ['ui_messages.json']) : {}
  return {
    notes: [
      ...(extra.files.length === 0
        ? []
        : [`read ${extra.files.length} sub-agent transcript${extra.files.length === 1 ? '' : 's'} from ${dirname(extra.files[0] as string)}`]),
      ...Object.keys(files).map((n) => `read ${join(dirname(file), n)} beside it`),
    ],
    extraRecords: extra.records,
    files,
  }
}

/** Reads, detects (or takes `--from`) and decodes a history file (see `readSessionFile`). */
export const loadHistory = (file: string, o: LoadOptions): Loaded => {
  const input = file === '-' ? readText(file) : (readBytes(file) ?? readText(file))
  const read = readSessionFile({
    name: file,
    from: o.from,
    badLines: o.skipBadLines === true ? 'skip' : 'fail',
    branches: o.branches,
    subagents: o.subagents,
    beside: besideOf(file, o),
  })(input)
  if (E.isLeft(read)) throw failed(file, read.left, o)
  const lines = inputFormat(read.right.format)?.lines ?? true
  return o.skipBadLines === true && !lines
    ? { ...read.right, notes: [...read.right.notes, `--skip-bad-lines has no effect on ${read.right.format}, which is one JSON document`] }
    : read.right
}

/** How the common options read a history file. */
export const loadOptions = (o: Common): LoadOptions => ({
  from: o.from,
  skipBadLines: o.skipBadLines,
  branches: o.allBranches === true ? 'all' : 'active',
  subagents: o.subagents ?? 'inline',
})

/** Reading notes and skipped lines on stderr for a person; with `--json` they go into the JSON report instead. */
export const notes = (io: CliIO, file: string, o: Common, h: Pick<Loaded, 'notes' | 'skipped'>): void => {
  if (o.json === true) return
  for (const n of h.notes) io.err(`${file}: ${n}\n`)
  for (const s of h.skipped) io.err(`${file}:${s.line}: skipped: ${s.reason}\n`)
}

/** What reading reported, for a `--json` report: notes, and the lines skipped when there are any. */
export const readReport = (h: Pick<Loaded, 'notes' | 'skipped'>): { readonly notes: ReadonlyArray<string>; readonly skipped?: Loaded['skipped'] } => ({
  notes: h.notes,
  ...(h.skipped.length === 0 ? {} : { skipped: h.skipped }),
})
