/**
 * How the artifact ledger reads one tool call and its result: the paths in the inputs of the file
 * tools of Claude Code, Codex, Gemini CLI and opencode (and any tool's `path`/`file_path`), the
 * command of a shell tool, and the exit status a shell result reports.
 *
 * @module
 */
import { isObject } from '../internal/object.ts'

/** What a file tool did to a path. */
export type FileUse = 'read' | 'written' | 'edited'

/** The JSON object of a tool call's arguments; `undefined` when they are not one. */
export const argumentsOf = (text: string): Readonly<Record<string, unknown>> | undefined => {
  try {
    const u: unknown = JSON.parse(text)
    return isObject(u) ? u : undefined
  } catch {
    return undefined
  }
}

const str = (u: unknown): string | undefined => (typeof u === 'string' && u !== '' ? u : undefined)

/** Tools whose named path argument is read, written or edited (names compared in lower case). */
const FILE_TOOLS: Readonly<Record<string, FileUse>> = {
  read: 'read',
  read_file: 'read',
  read_many_files: 'read',
  view: 'read',
  write: 'written',
  write_file: 'written',
  create_file: 'written',
  edit: 'edited',
  multiedit: 'edited',
  notebookedit: 'edited',
  replace: 'edited',
  edit_file: 'edited',
  str_replace_editor: 'edited',
  str_replace_based_edit_tool: 'edited',
}

/** Argument names that hold one path. */
const PATH_KEYS = ['file_path', 'filePath', 'notebook_path', 'absolute_path', 'path'] as const

/** The use a tool of another name makes of its `path`: by a verb in its name, else a read. */
const guessUse = (name: string): FileUse => (/write|create|save/.test(name) ? 'written' : /edit|replace|patch|insert/.test(name) ? 'edited' : 'read')

/** The `*** Add File:` / `*** Update File:` / `*** Delete File:` / `*** Move to:` lines of an apply_patch text. */
const patchPaths = (text: string, add: (path: string, use: FileUse) => void): void => {
  for (const m of text.matchAll(/^\*\*\* (Add File|Update File|Delete File|Move to): (.+)$/gm)) {
    const path = (m[2] as string).trim()
    if (path !== '') add(path, m[1] === 'Add File' || m[1] === 'Move to' ? 'written' : 'edited')
  }
}

/** The paths a tool call read, wrote or edited, by `add`. */
export const filesOf = (name: string, args: Readonly<Record<string, unknown>> | undefined, raw: string, add: (path: string, use: FileUse) => void): void => {
  const lower = name.toLowerCase()
  if (lower === 'apply_patch' || lower === 'patch' || raw.includes('*** Begin Patch'))
    patchPaths(args === undefined ? raw : (str(args['input']) ?? str(args['patch']) ?? raw), add)
  if (args === undefined) return
  const use = FILE_TOOLS[lower] ?? guessUse(lower)
  for (const k of PATH_KEYS) {
    const p = str(args[k])
    if (p !== undefined) {
      add(p, use)
      break
    }
  }
  const many = args['paths']
  if (Array.isArray(many)) { for (const p of many) if (typeof p === 'string' && p !== '') add(p, use) }
}

/** Tools that run a shell command (names compared in lower case). */
const SHELL_TOOLS = new Set([
  'bash',
  'shell',
  'exec_command',
  'local_shell',
  'local_shell_call',
  'run_shell_command',
  'run_terminal_cmd',
  'execute_command',
  'terminal',
])

/** The command line a shell tool call ran; `undefined` for other tools. */
export const commandOf = (name: string, args: Readonly<Record<string, unknown>> | undefined): string | undefined => {
  if (args === undefined || !SHELL_TOOLS.has(name.toLowerCase())) return undefined
  const c = args['command'] ?? args['cmd']
  if (typeof c === 'string') return c
  if (Array.isArray(c) && c.every((x) => typeof x === 'string')) {
    // ['bash', '-lc', 'npm test'] ran 'npm test'
    const shell = c.length === 3 && /^(ba|z)?sh$/.test(String(c[0]).replace(/.*\//, '')) && /^-l?c$/.test(String(c[1]))
    return shell ? String(c[2]) : c.join(' ')
  }
  return undefined
}

/** The exit code a shell result reports: Codex's JSON `metadata.exit_code`, or an `Exit code N` line. */
export const exitCodeOf = (content: string): number | undefined => {
  if (content.startsWith('{')) {
    const o = argumentsOf(content)
    const meta = o?.['metadata']
    const code = isObject(meta) ? meta['exit_code'] : o?.['exit_code']
    if (typeof code === 'number' && Number.isInteger(code)) return code
  }
  const m = /^(?:Error: )?Exit code:? (-?\d+)/m.exec(content.slice(0, 400))
  return m === null ? undefined : Number(m[1])
}
