/**
 * chatfold on Node (`chatfold/node`): the engine in a `worker_threads` worker, Comlink endpoints
 * over worker threads, a `node:http` adapter for the chat handler, the chat store's file backend
 * (`fileStorage`, `repairFileStore`), the Durable Streams log in a file (`fileStreamsStorage`) and
 * `serveChatStore`, what `chatfold serve` runs, and session
 * files: a history or a whole store saved as JSONL atomically, appended to, and loaded back with
 * every line validated (`saveHistory`, `appendHistory`, `loadHistory`, `saveStore`, `loadStore`).
 *
 * @example
 * import { createNodeEngine } from 'chatfold/node'
 * const engine = createNodeEngine({ encoding: 'o200k_base' })
 *
 * @module
 */
export * from './engine.ts'
export * from './endpoint.ts'
export * from './http.ts'
export * from './file-storage.ts'
export * from './repair-store.ts'
export * from './serve.ts'
export * from './session-file.ts'
export * from './read-back-file.ts'
export * from './streams-file.ts'
