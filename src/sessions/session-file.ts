/**
 * Reading one history file whatever format it is in, from its text or its bytes: a chat export's
 * zip as downloaded, an empty file as an empty chatfold JSONL, anything else parsed, its format
 * detected by signature (or named) and read with the format's reader. What the command line and
 * the history explorer both do with a file; what only a file system gives (files beside it) comes
 * in through `beside`.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import { fromChatExportZip } from './chat-export-zip.ts'
import { joinConversations } from './chat-export.ts'
import { type Candidate, detectFormat, INPUT_FORMATS, type InputFormat, inputFormat, parseDoc, type Read, type ReadOptions } from './input-formats.ts'

/**
 * Why a file could not be read: a format name no input format has (`unknown-name`), text that is
 * neither JSON nor JSON lines (`not-json`, at a line), a document no signature (or several) fits
 * (`undetected`, with why), a zip that is no chat export (`zip`), or the format's reader refusing
 * it (`unreadable`; `byLine` when its failure names lines, which skipping bad lines may get past).
 */
export type SessionFileFailure =
  | { readonly kind: 'unknown-name'; readonly name: string; readonly formats: ReadonlyArray<string> }
  | { readonly kind: 'not-json'; readonly line: number; readonly message: string }
  | { readonly kind: 'undetected'; readonly reason: string; readonly formats: ReadonlyArray<string> }
  | { readonly kind: 'zip'; readonly failure: DecodeFailure }
  | { readonly kind: 'unreadable'; readonly format: string; readonly failure: DecodeFailure; readonly byLine: boolean }

/** A file read: what its format's reader gave, the format's name, and the file's size in bytes. */
export type SessionFile = Read & { readonly format: string; readonly bytes: number }

/**
 * How to read a file: its `name` (in notes), a format `from` to read it as instead of detecting
 * one, bad lines of JSON lines ending the read or skipped, every branch or only the active one,
 * sub-agent runs inline or left out, and `beside`: what else to read along with a file of the
 * format detected (a Claude Code session's sub-agent transcripts, a Cline task's `ui_messages.json`),
 * with a note for each.
 */
export type SessionFileOptions = {
  readonly name?: string
  readonly from?: string | undefined
  readonly badLines?: 'fail' | 'skip'
  readonly branches?: 'active' | 'all' | undefined
  readonly subagents?: 'inline' | 'omit' | undefined
  readonly beside?: (format: string) => {
    readonly notes: ReadonlyArray<string>
    readonly extraRecords?: ReadonlyArray<unknown>
    readonly files?: Readonly<Record<string, unknown>>
  }
}

/** Whether bytes open as a zip archive does (`PK\x03\x04`). */
const isZip = (b: Uint8Array): boolean => b.length > 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04

const names = (): ReadonlyArray<string> => INPUT_FORMATS.map((f) => f.name)

/**
 * Reads a history file from its text, or its bytes (a ChatGPT or Claude.ai export's zip is read
 * as it was downloaded, its conversations one after another; other bytes are read as UTF-8 text).
 * An empty file is chatfold JSONL with no messages (what `toJSONL` writes of an empty history),
 * said in a note. Otherwise the format named by `from`, or else the one whose signature the
 * document fits (see `detectFormat`), reads it. `Left` says why it could not be read.
 */
export const readSessionFile = (o: SessionFileOptions) => (input: string | Uint8Array): E.Either<SessionFileFailure, SessionFile> => {
  const name = o.name ?? 'the file'
  const forced = o.from === undefined ? undefined : inputFormat(o.from)
  if (o.from !== undefined && forced === undefined) return E.left({ kind: 'unknown-name', name: o.from, formats: names() })
  if (typeof input !== 'string' && isZip(input) && (forced === undefined || forced.name === 'chatgpt' || forced.name === 'claude-ai')) {
    const r = fromChatExportZip(o.branches === undefined ? {} : { branches: o.branches })(input)
    if (E.isLeft(r)) return E.left({ kind: 'zip', failure: r.left })
    const read = joinConversations(r.right.conversations)
    return E.right({ ...read, notes: [`read ${name} as a ${r.right.format} export's zip`, ...read.notes], format: r.right.format, bytes: input.length })
  }
  const text = typeof input === 'string' ? input : new TextDecoder('utf-8', { ignoreBOM: true }).decode(input)
  const bytes = typeof input === 'string' ? new TextEncoder().encode(text).length : input.length
  if (text.trim() === '' && (forced === undefined || forced.name === 'chatfold-jsonl'))
    return E.right({
      messages: [],
      archive: [],
      notes: [`${name} is empty: read as chatfold JSONL with no messages`],
      skipped: [],
      format: 'chatfold-jsonl',
      bytes,
    })
  const doc = parseDoc(text)
  if (E.isLeft(doc)) return E.left({ kind: 'not-json', ...doc.left })
  let format: InputFormat
  if (forced !== undefined) format = forced
  else {
    const found: E.Either<string, Candidate> = detectFormat(doc.right)
    if (E.isLeft(found)) return E.left({ kind: 'undetected', reason: found.left, formats: names() })
    format = found.right.format
  }
  const beside = o.beside?.(format.name)
  const options: ReadOptions = {
    badLines: o.badLines ?? 'fail',
    ...(o.branches === undefined ? {} : { branches: o.branches }),
    ...(o.subagents === undefined ? {} : { subagents: o.subagents }),
    ...(beside?.extraRecords === undefined || beside.extraRecords.length === 0 ? {} : { extraRecords: beside.extraRecords }),
    ...(beside?.files === undefined || Object.keys(beside.files).length === 0 ? {} : { beside: beside.files }),
  }
  const read = format.read(doc.right, options)
  if (E.isLeft(read))
    return E.left({
      kind: 'unreadable',
      format: format.name,
      failure: read.left,
      byLine: format.lines && read.left.some((i) => /^line \d+/.test(i.path)),
    })
  return E.right({ ...read.right, notes: [...(beside?.notes ?? []), ...read.right.notes], format: format.name, bytes })
}
