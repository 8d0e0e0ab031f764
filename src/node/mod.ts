/**
 * chatfold on Node (`chatfold/node`): the engine in a `worker_threads` worker, Comlink endpoints
 * over worker threads, a `node:http` adapter for the chat handler, the chat store's file backend
 * (`fileStorage`, `repairFileStore`) and `serveChatStore`, what `chatfold serve` runs.
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
