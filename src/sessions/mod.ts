/**
 * chatfold/sessions: the session files of coding tools read as histories. Claude Code transcripts
 * (`readClaudeCode`, `fromClaudeCode`: the active branch of the record tree, compaction, sub-agents),
 * OpenAI Codex CLI rollouts
 * (`fromCodexRollout`), Gemini CLI chat recordings (`fromGeminiCliChat`) and `opencode export` files
 * (`fromOpencodeExport`), Cline / Roo Code / Kilo Code task histories (`fromClineTask`), and the ChatGPT and Claude.ai
 * data exports (`fromChatGPTExport`, `fromClaudeAiExport`: one read per conversation; their zip as
 * downloaded: `fromChatExportZip`), pi sessions (`fromPiSession`), GitHub Copilot chat sessions of VS Code (`fromCopilotChatSession`) and Copilot's session event streams (`fromCopilotEvents`), each giving the history, what a recorded compaction archived, notes on what
 * is not part of the conversation, and the lines skipped as bad.
 *
 * @example
 * import { fromCodexRollout } from 'chatfold/sessions'
 * const r = fromCodexRollout({ badLines: 'skip' })('{"timestamp":"2026-01-05T09:00:00.000Z","type":"session_meta","payload":{"id":"s"}}')
 *
 * @module
 */
export type { SessionOptions, SessionRead, SkippedLine } from './session-read.ts'
export { fromCodexRollout } from './codex.ts'
export { fromGeminiCliChat } from './gemini-cli.ts'
export { fromOpencodeExport } from './opencode.ts'
export { type ClineTask, fromClineTask, isClineHistory } from './cline.ts'
export { type ChatExportConversation, joinConversations } from './chat-export.ts'
export { type ChatExportOptions, fromChatGPTExport, isChatGPTExport } from './chatgpt.ts'
export { fromClaudeAiExport, isClaudeAiExport } from './claude-ai.ts'
export { type ChatExportZip, fromChatExportZip } from './chat-export-zip.ts'
export { fromPiSession, isPiSessionLine } from './pi.ts'
export { fromCopilotChatSession, isCopilotChatSession } from './copilot.ts'
export { fromCopilotEvents, isCopilotEvent } from './copilot-events.ts'
export { type ClaudeCodeOptions, type ClaudeCodeOrigin, type ClaudeCodeSession, fromClaudeCode, isClaudeCodeRecord, readClaudeCode } from './claude-code.ts'
