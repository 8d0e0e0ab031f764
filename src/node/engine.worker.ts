/**
 * The engine's `worker_threads` worker (Node): the very service an inline engine calls, exposed
 * with Comlink over `parentPort`. `createNodeEngine()` (chatfold/node) starts it. For monitoring it
 * also answers `heapStatistics()`: the V8 heap of this worker (not of the process).
 *
 * @module
 */
import { parentPort } from 'node:worker_threads'
import { getHeapStatistics } from 'node:v8'
import { expose } from 'comlink'
import { createEngineService } from '../engine/service.ts'
import { portEndpoint } from './endpoint.ts'

if (parentPort === null) throw new Error('Cannot start the chatfold engine worker: it must run in a worker thread')
expose({ ...createEngineService(), heapStatistics: () => Promise.resolve(getHeapStatistics()) }, portEndpoint(parentPort))
