/**
 * Several files dropped on the explorer at once, sorted as the command line finds them on disk: the
 * session file, and what it reads beside it: a Claude Code session's sub-agent transcripts
 * (`agent-*.jsonl`, from `SESSION/subagents/` or beside the session) and a Cline task's
 * `ui_messages.json`. Files of neither kind beyond the session are named as not read.
 */
import * as E from 'fp-ts/Either'
import { jsonlLines } from '../src/internal/lines.ts'
import { parseJsonText } from '../src/internal/json.ts'
import type { SessionFileOptions } from '../src/sessions/session-file.ts'

/** One dropped file: its name (a path's last segment is what counts) and its bytes. */
export type DroppedFile = { readonly name: string; readonly bytes: Uint8Array }

/** The session among the dropped files, and what to read beside it (`beside` of `readSessionFile`). */
export type Dropped = {
  readonly main: DroppedFile
  readonly beside: NonNullable<SessionFileOptions['beside']>
  /** Whether sub-agent transcripts and a `ui_messages.json` were among the files. */
  readonly given: { readonly subagents: boolean; readonly ui: boolean }
}

const baseName = (name: string): string => name.split(/[\\/]/).pop() ?? name
const isAgentFile = (name: string): boolean => /^agent-.*\.jsonl$/.test(baseName(name))
const isUiMessages = (name: string): boolean => baseName(name) === 'ui_messages.json'
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes)

/** The records of a JSONL file; `Left` names its first line that is not JSON. */
const records = (f: DroppedFile): E.Either<string, unknown[]> => {
  const out: unknown[] = []
  for (const line of jsonlLines(text(f.bytes))) {
    const v = parseJsonText(line.text)
    if (E.isLeft(v)) return E.left(`${f.name}:${line.n}: not JSON: ${v.left}`)
    out.push(v.right)
  }
  return E.right(out)
}

/** The `sessionId` the first records of a Claude Code file name, if any. */
const sessionIdOf = (rs: ReadonlyArray<unknown>): string | undefined => {
  for (const r of rs.slice(0, 50))
    if (typeof r === 'object' && r !== null && typeof (r as Record<string, unknown>)['sessionId'] === 'string')
      return (r as Record<string, string>)['sessionId']
  return undefined
}

/**
 * Sorts dropped files: the session is the first that is neither a sub-agent transcript nor a
 * `ui_messages.json` (else the first file); a Claude Code session takes the sub-agent transcripts
 * whose records name its session (or name none), a Cline task the `ui_messages.json`; every other
 * file, and a transcript of another session, is named in a note. `Left`: no file, or a file to read
 * beside the session that is not JSON.
 */
export const sortDropped = (files: ReadonlyArray<DroppedFile>): E.Either<string, Dropped> => {
  const main = files.find((f) => !isAgentFile(f.name) && !isUiMessages(f.name)) ?? files[0]
  if (main === undefined) return E.left('No file')
  const rest = files.filter((f) => f !== main)
  const agents = rest.filter((f) => isAgentFile(f.name))
  const ui = rest.find((f) => isUiMessages(f.name))
  const parsedAgents: Array<{ readonly file: DroppedFile; readonly records: unknown[] }> = []
  for (const f of agents) {
    const r = records(f)
    if (E.isLeft(r)) return r
    parsedAgents.push({ file: f, records: r.right })
  }
  let uiValue: unknown
  if (ui !== undefined) {
    const v = parseJsonText(text(ui.bytes))
    if (E.isLeft(v)) return E.left(`${ui.name}: not JSON: ${v.left}`)
    uiValue = v.right
  }
  const beside = (format: string): ReturnType<Dropped['beside']> => {
    const notes: string[] = []
    let used: ReadonlyArray<DroppedFile> = []
    let extraRecords: unknown[] = []
    let besideFiles: Record<string, unknown> = {}
    if (format === 'claude-code' && parsedAgents.length > 0) {
      const mainRecords = records(main)
      const session = E.isRight(mainRecords) ? sessionIdOf(mainRecords.right) : undefined
      const taken = parsedAgents.filter((a) => session === undefined || sessionIdOf(a.records) === undefined || sessionIdOf(a.records) === session)
      extraRecords = taken.flatMap((a) => a.records)
      used = taken.map((a) => a.file)
      if (taken.length > 0)
        notes.push(`read ${taken.length} sub-agent transcript${taken.length === 1 ? '' : 's'} dropped with it: ${taken.map((a) => a.file.name).join(', ')}`)
    }
    if (format === 'cline' && ui !== undefined) {
      besideFiles = { 'ui_messages.json': uiValue }
      used = [...used, ui]
      notes.push(`read ${ui.name} dropped with it`)
    }
    const unused = rest.filter((f) => !used.includes(f))
    if (unused.length > 0) notes.push(`not read (one session at a time, with the files it reads beside it): ${unused.map((f) => f.name).join(', ')}`)
    return { notes, extraRecords, files: besideFiles }
  }
  return E.right({ main, beside, given: { subagents: agents.length > 0, ui: ui !== undefined } })
}
