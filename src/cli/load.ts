/**
 * Reading a history file for the command line, and the failures it can end with.
 *
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../failure.ts'
import { formatDecodeFailure } from '../failure.ts'
import { detectFormat, INPUT_FORMATS, inputFormat, parseDoc, type Read } from './formats.ts'
import { CliFailure, EXIT } from './shared.ts'

// defined with what every command shares (loaded before any command's modules); public from here too
export { CliFailure, EXIT } from './shared.ts'

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
    throw new CliFailure(EXIT.io, `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message}`)
  }
}

/** Writes text to a file, or to stdout when no file is given. */
export const writeText = (file: string | undefined, text: string, out: (s: string) => void): void => {
  if (file === undefined) return out(text)
  try {
    writeFileSync(file, text)
  } catch (e) {
    throw new CliFailure(EXIT.io, `cannot write ${file}: ${(e as Error).message}`)
  }
}

/** A loaded history: what was read, and the name of the format it was read as. */
export type Loaded = Read & { readonly format: string; readonly bytes: number }

/** Reads, detects (or takes `from`) and decodes a history file. */
export const loadHistory = (file: string, from: string | undefined): Loaded => {
  const text = readText(file)
  const forced = from === undefined ? undefined : inputFormat(from)
  if (from !== undefined && forced === undefined) throw new CliFailure(EXIT.usage, `unknown input format ${from}: one of ${INPUT_FORMATS.map((f) => f.name).join(', ')}`)
  const doc = parseDoc(text)
  if (E.isLeft(doc)) {
    const at = positionLine(text, doc.left.message) ?? doc.left.line
    throw new CliFailure(EXIT.input, `${file}:${at}: not JSON nor JSON lines: ${doc.left.message}`)
  }
  const format = forced ?? detectFormat(doc.right)
  if (format === undefined) throw new CliFailure(EXIT.input, `${file}: cannot tell the format; name it with --from (one of ${INPUT_FORMATS.map((f) => f.name).join(', ')})`)
  const read = format.read(doc.right)
  if (E.isLeft(read)) throw new CliFailure(EXIT.input, `cannot read ${file} as ${format.name}:\n${describeFailure(file, read.left)}`)
  return { ...read.right, format: format.name, bytes: new TextEncoder().encode(text).length }
}
