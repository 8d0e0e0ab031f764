/**
 * chatfold on Node (`chatfold/node`): the engine in a `worker_threads` worker, and Comlink
 * endpoints over worker threads.
 *
 * @example
 * import { createNodeEngine } from 'chatfold/node'
 * const engine = createNodeEngine({ encoding: 'o200k_base' })
 *
 * @module
 */
export * from './engine.ts'
export * from './endpoint.ts'
