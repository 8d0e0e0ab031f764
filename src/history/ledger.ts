/**
 * The artifact ledger of a history, read deterministically from its tool calls, tool results and
 * user turns, with the ledgers that earlier compactions left in their summaries' metadata merged in.
 *
 * @module
 */
import type { Message, Messages } from '../message/message.ts'
import { isCompactionSummary } from '../message/compaction-mark.ts'
import { toolResultText } from '../message/tool-result-content.ts'
import { type ArtifactLedger, ArtifactLedgerC, EMPTY_LEDGER, type LedgerCommand, mergeLedgers } from './artifact-ledger.ts'
import { argumentsOf, commandOf, exitCodeOf, filesOf, type FileUse } from './_ledger-read.ts'

/**
 * The metadata key under which a compaction summary keeps the ledger of everything it replaced
 * (`metadata.ledger`, an `ArtifactLedger`).
 *
 * @example
 * import { LEDGER_KEY } from 'chatfold/history'
 * LEDGER_KEY // 'ledger'
 *
 * @since 0.1.0
 * @category ledger
 */
export const LEDGER_KEY = 'ledger'

/** How many characters of an error result the ledger keeps. */
const ERROR_PREVIEW = 200

/**
 * The ledger a message carries in `metadata.ledger` (a compaction summary's); `undefined` when it
 * has none or it does not decode.
 *
 * @example
 * import { carriedLedger } from 'chatfold/history'
 * import { textMessage } from 'chatfold/message'
 * carriedLedger(textMessage('user', 'hi')) // undefined
 *
 * @since 0.1.0
 * @category ledger
 */
export const carriedLedger = (m: Message): ArtifactLedger | undefined => {
  const v = m.metadata?.[LEDGER_KEY]
  if (v === undefined) return undefined
  const d = ArtifactLedgerC.decode(v)
  return d._tag === 'Right' ? d.right : undefined
}

/**
 * The artifact ledger of a stretch of history, in message order: every path a file tool read,
 * wrote or edited (Claude Code's Read/Write/Edit/MultiEdit/NotebookEdit, Codex's apply_patch,
 * Gemini CLI's read_file/write_file/replace, opencode's read/write/edit, and any tool's `path`,
 * `file_path` or `filePath`), every shell command (Bash, shell, exec_command, run_shell_command…)
 * with the status its result gives (an exit code, or the result marked as an error), every tool
 * result marked as an error, and every user text turn. A message that carries a ledger (a
 * compaction summary's `metadata.ledger`) has it merged in at its place, so the ledger of a
 * compacted history still holds what the compaction dropped. Summaries are not instructions.
 *
 * @example
 * import { artifactLedger } from 'chatfold/history'
 * import { makeMessage, textMessage, toolCall, toolResult } from 'chatfold/message'
 * const ledger = artifactLedger([
 *   textMessage('user', 'Fix the failing test.'),
 *   makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'Bash', arguments: JSON.stringify({ command: 'npm test' }) })] }),
 *   makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'Exit code 1\n1 failing', isError: true })] }),
 * ])
 * ledger.commands // [{ toolCallId: 'c1', tool: 'Bash', command: 'npm test', status: 'failed', exitCode: 1 }]
 *
 * @since 0.1.0
 * @category ledger
 */
export const artifactLedger = (ms: Messages): ArtifactLedger => {
  let carried: ArtifactLedger = EMPTY_LEDGER
  const files: Record<FileUse, string[]> = { read: [], written: [], edited: [] }
  const seen: Record<FileUse, Set<string>> = { read: new Set(), written: new Set(), edited: new Set() }
  const add = (path: string, use: FileUse): void => {
    if (!seen[use].has(path)) (seen[use].add(path), files[use].push(path))
  }
  const commands: LedgerCommand[] = []
  const commandAt = new Map<string, number>()
  const names = new Map<string, string>()
  const errors: { toolCallId: string; tool: string; preview: string }[] = []
  const instructions: { messageId: string; text: string }[] = []
  for (const m of ms) {
    const kept = carriedLedger(m)
    if (kept !== undefined) carried = mergeLedgers(kept)(carried)
    if (m.role === 'user' && m.kind === 'normal' && !isCompactionSummary(m)) {
      const text = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')
      if (text.trim() !== '') instructions.push({ messageId: m.id, text })
    }
    for (const p of m.parts) {
      if (p.type === 'tool_call') {
        names.set(p.id, p.name)
        const args = argumentsOf(p.arguments)
        filesOf(p.name, args, p.arguments, add)
        const command = commandOf(p.name, args)
        if (command !== undefined && !commandAt.has(p.id)) {
          commandAt.set(p.id, commands.length)
          commands.push({ toolCallId: p.id, tool: p.name, command, status: 'unknown' })
        }
      } else if (p.type === 'tool_result') {
        const tool = p.name ?? names.get(p.toolCallId) ?? ''
        if (p.isError) errors.push({ toolCallId: p.toolCallId, tool, preview: toolResultText(p).slice(0, ERROR_PREVIEW) })
        const at = commandAt.get(p.toolCallId)
        if (at !== undefined) {
          const c = commands[at] as LedgerCommand
          const exitCode = exitCodeOf(toolResultText(p))
          const failed = p.isError || (exitCode !== undefined && exitCode !== 0)
          commands[at] = { ...c, status: failed ? 'failed' : 'ok', ...(exitCode === undefined ? {} : { exitCode }) }
        }
      }
    }
  }
  return mergeLedgers({ ...files, commands, errors, instructions })(carried)
}
