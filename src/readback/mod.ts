/**
 * A way back to what pruning and clearing took out of a history: each placeholder they leave
 * carries a pointer (`chatfold/history`'s `ContentPointer`; its short reference in the
 * placeholder's text), and `readBack` reads the original back through it, byte for byte and a
 * page at a time, from a history that still holds it (the history before pruning, the archive a
 * compaction returns, a session file through `chatfold/node`'s `readBackFromFile`, or the history
 * a framework session kept in the chat store gives: a chat message's own content has no form for
 * tool outputs, see `toChatContentNoted` of `chatfold/store`); `searchHistory` searches such a history.
 * The agent tools over them are in `chatfold/ai-sdk`, `chatfold/openai-agents` and
 * `chatfold/claude-agent-sdk`.
 *
 * @example
 * import { pointersOf, pruneToolResults } from 'chatfold/history'
 * import { readBack } from 'chatfold/readback'
 * declare const history: import('chatfold').Messages
 * const pruned = pruneToolResults({ protectTokens: 40_000 })(history)
 * const pointer = pruned.flatMap(pointersOf)[0]
 * if (pointer !== undefined) readBack(pointer, { maxBytes: 16_000 })(history)
 *
 * @module
 */
export { contentHash, fromPointerRef, type PointerRef, toPointerRef } from './pointer-ref.ts'
export { type HistoryIndex, indexHistory, type ReadBackSource } from './history-index.ts'
export { formatReadBackFailure, readBack, type ReadBackFailure, type ReadBackOptions, type ReadBackPage } from './read-back.ts'
export { readBackFromJSONL } from './read-back-jsonl.ts'
export { indexJSONL, type JSONLIndex, readBackFromLines } from './jsonl-index.ts'
export { type HistorySearchOptions, searchHistory, type SearchHit, type SearchResult } from './search-history.ts'
export { type ReadAnswer, type ReadBackTool, readBackTools, type ReadBackToolsOptions, type SearchAnswer } from './tools.ts'
