/**
 * Reading a session file in the explorer: every format the command line reads, detected by the same
 * signatures (`src/sessions/input-formats.ts`), from the file's bytes (a chat export's zip as it was
 * downloaded), with the files dropped with it that the command line reads beside it, and what was
 * wrong said in a sentence that names the format.
 */
import * as E from 'fp-ts/Either'
import { costLedger } from '../src/cost/ledger.ts'
import { formatDecodeFailure } from '../src/message/failure.ts'
import type { Messages } from '../src/message/message.ts'
import { inputFormat } from '../src/sessions/input-formats.ts'
import { readSessionFile, type SessionFileFailure } from '../src/sessions/session-file.ts'
import { type DroppedFile, sortDropped } from './dropped.ts'

/** A file read: its messages, what a compaction recorded in it replaced, the notes of its reader, and its format's title. */
export type Loaded = {
  readonly messages: Messages
  readonly archive: Messages
  readonly notes: ReadonlyArray<string>
  readonly format: string
  /** What the history cost, as one line (see `costLine`). */
  readonly cost: string
}

const usd = (n: number): string => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`)

/**
 * The cost of a history as one line, from the usage its replies record (`costLedger`): the total
 * priced and each model's part, and every model the price table cannot price, named (never counted
 * as nothing); empty when no reply records a token.
 */
export const costLine = (ms: Messages): string => {
  const l = costLedger({})(ms)
  const priced = l.byModel.flatMap((m) => (m.cost === undefined || m.input + m.output + m.cacheRead + m.cacheWrite === 0 ? [] : [`${m.model} ${usd(m.cost)}`]))
  const unpriced = [...new Set(l.failures.map((f) => ('model' in f ? f.model : f.kind === 'no-model' ? 'no model named' : 'unknown usage')))]
  if (priced.length === 0 && unpriced.length === 0) return ''
  return [
    ...(priced.length === 0 ? [] : [`cost ${usd(l.total)} (${priced.join(', ')})`]),
    ...(unpriced.length === 0 ? [] : [`unpriced: ${unpriced.join(', ')}`]),
    `prices of ${l.prices.taken}`,
  ].join(' · ')
}

/** A format's title: the head of its description (`Claude Code session file`, `chatfold JSONL`). */
export const formatTitle = (name: string): string => {
  const d = inputFormat(name)?.description
  return d === undefined ? name : (d.split(/ \(|:/)[0] ?? name).trim()
}

/** What the command line reads beside a file of these formats, when it was not dropped with it. */
const BESIDE: Readonly<Record<string, string>> = {
  'claude-code':
    'the sub-agent transcripts beside a Claude Code session (SESSION/subagents/agent-*.jsonl) were not dropped with it: drop them together to read them, as `chatfold` does',
  cline: "the task's ui_messages.json was not dropped with it: drop them together to read it, as `chatfold` does",
}

/** What the page says of a file it cannot read. */
const describe = (f: SessionFileFailure): string => {
  switch (f.kind) {
    case 'unknown-name':
      return `Unknown format ${f.name}`
    case 'not-json':
      return `line ${f.line}: not JSON nor JSON lines: ${f.message}`
    case 'undetected':
      return `Cannot tell the format: ${f.reason}`
    case 'zip':
      return `Cannot read it as a chat export's zip: ${formatDecodeFailure(f.failure)}`
    case 'unreadable':
      return `Cannot read it as ${formatTitle(f.format)} (${f.format}): ${formatDecodeFailure(f.failure)}`
  }
}

/**
 * Reads a file's text or bytes as the command line does (`readSessionFile`: the format detected by
 * signature, every branch's active one, sub-agent runs inline); `Left` says what was wrong.
 */
export const decodeSessionFile = (input: string | Uint8Array, name = 'the file'): E.Either<string, Loaded> =>
  decodeSessionFiles([{ name, bytes: typeof input === 'string' ? new TextEncoder().encode(input) : input }])

/**
 * Reads files dropped together as the command line reads a session with what lies beside it on disk
 * (see `sortDropped`): a Claude Code session with its sub-agent transcripts, a Cline task with its
 * `ui_messages.json`; a note names what was read beside it, and what such a session lacked.
 */
export const decodeSessionFiles = (files: ReadonlyArray<DroppedFile>): E.Either<string, Loaded> => {
  const dropped = sortDropped(files)
  if (E.isLeft(dropped)) return dropped
  const { main, beside, given } = dropped.right
  const r = readSessionFile({ name: main.name, beside })(main.bytes)
  if (E.isLeft(r)) return E.left(describe(r.left))
  const { messages, archive, notes, skipped, format } = r.right
  const lacking = (format === 'claude-code' && !given.subagents) || (format === 'cline' && !given.ui) ? BESIDE[format] : undefined
  return E.right({
    messages,
    archive,
    notes: [...notes, ...skipped.map((s) => `line ${s.line} skipped: ${s.reason}`), ...(lacking === undefined ? [] : [lacking])],
    format: formatTitle(format),
    cost: costLine([...archive, ...messages]),
  })
}
