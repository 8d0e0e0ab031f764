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
import { fromChatExportZip } from '../sessions/chat-export-zip.ts'
import { joinConversations } from '../sessions/chat-export.ts'
import { detectFormat, type Doc, INPUT_FORMATS, type InputFormat, inputFormat, parseDoc, type Read } from './formats.ts'

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

const positionLine = (text: string, message: string): number | undefined => {
  const m = /position (\d+)/.exec(message)
  if (m === null) return undefined
  const pos = Number(m[1])
  let line = 1
  for (let i = 0; i < pos && i < text.length; i++) if (text.charCodeAt(i) === 10) line++
  return line
}

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
export type Loaded = Read & { readonly format: string; readonly bytes: number }

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
    const at = positionLine(text, doc.left.message) ?? doc.left.line
    throw new CliError(EXIT.input, `${file}:${at}: not JSON nor JSON lines: ${doc.left.message}`)
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

/** A chat export's zip, read as downloaded: its conversations one after another. */
const loadZip = (file: string, bytes: Uint8Array, o: LoadOptions): Loaded => {
  const r = fromChatExportZip(o.branches === undefined ? {} : { branches: o.branches })(bytes)
  if (E.isLeft(r)) throw new CliError(EXIT.input, `cannot read ${file} as a chat export's zip:\n${describeFailure(file, r.left)}`)
  const read = joinConversations(r.right.conversations)
  return { ...read, notes: [`read ${file} as a ${r.right.format} export's zip`, ...read.notes], format: r.right.format, bytes: bytes.length }
}

/** Whether bytes open as a zip archive does (`PK\x03\x04`). */
const isZip = (b: Uint8Array): boolean => b.length > 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04

/** Reads, detects (or takes `--from`) and decodes a history file. */
export const loadHistory = (file: string, o: LoadOptions): Loaded => {
  if (file !== '-' && (o.from === undefined || o.from === 'chatgpt' || o.from === 'claude-ai')) {
    const bytes = readBytes(file)
    if (bytes !== undefined && isZip(bytes)) return loadZip(file, bytes, o)
  }
  const text = readText(file)
  const forced = o.from === undefined ? undefined : namedFormat(o.from)
  // an empty history's chatfold JSONL is an empty file (toJSONL writes nothing): read as one, and said
  if (text.trim() === '' && (forced === undefined || forced.name === 'chatfold-jsonl')) {
    return {
      messages: [],
      archive: [],
      notes: [`${file} is empty: read as chatfold JSONL with no messages`],
      skipped: [],
      format: 'chatfold-jsonl',
      bytes: text.length,
    }
  }
  const doc = docOf(file, text)
  let format = forced
  if (format === undefined) {
    const found = detectFormat(doc)
    if (E.isLeft(found))
      throw new CliError(
        EXIT.input,
        `${file}: cannot tell the format; name it with --from (one of ${INPUT_FORMATS.map((f) => f.name).join(', ')}): ${found.left}`,
      )
    format = found.right.format
  }
  const extra = format.name === 'claude-code' && o.subagents !== 'omit' ? subagentRecords(file) : { records: [], files: [] }
  const beside = format.name === 'cline' ? besideFiles(file, ['ui_messages.json']) : {}
  const read = format.read(doc, {
    badLines: o.skipBadLines === true ? 'skip' : 'fail',
    ...(o.branches === undefined ? {} : { branches: o.branches }),
    ...(o.subagents === undefined ? {} : { subagents: o.subagents }),
    ...(extra.records.length === 0 ? {} : { extraRecords: extra.records }),
    ...(Object.keys(beside).length === 0 ? {} : { beside }),
  })
  if (E.isLeft(read)) {
    const byLine = format.lines && read.left.some((i) => /^line \d+/.test(i.path))
    throw new CliError(
      EXIT.input,
      `cannot read ${file} as ${format.name}:\n${describeFailure(file, read.left)}${
        byLine && o.skipBadLines !== true ? '\n(--skip-bad-lines reads the other lines and lists those it leaves out)' : ''
      }`,
    )
  }
  const readNotes = o.skipBadLines === true && !format.lines
    ? [...read.right.notes, `--skip-bad-lines has no effect on ${format.name}, which is one JSON document`]
    : read.right.notes
  const more = [
    ...(extra.files.length === 0
      ? []
      : [`read ${extra.files.length} sub-agent transcript${extra.files.length === 1 ? '' : 's'} from ${dirname(extra.files[0] as string)}`]),
    ...Object.keys(beside).map((n) => `read ${join(dirname(file), n)} beside it`),
  ]
  return { ...read.right, notes: [...more, ...readNotes], format: format.name, bytes: new TextEncoder().encode(text).length }
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
