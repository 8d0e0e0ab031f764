/**
 * Comlink endpoints over Node's `worker_threads`: Comlink's own Node adapter (a `Worker` or
 * `MessagePort` emits raw message data to `on('message')` listeners, where Comlink expects
 * `addEventListener` and events with `data`).
 *
 * @module
 */
import type { Endpoint } from 'comlink'
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs'

type NodePort = {
  postMessage(value: unknown, transferList?: ReadonlyArray<unknown>): void
  on(event: 'message', listener: (value: unknown) => void): unknown
  off(event: 'message', listener: (value: unknown) => void): unknown
}

/**
 * Adapts a `worker_threads` `Worker` or `MessagePort` to a Comlink endpoint (Comlink's `nodeEndpoint`).
 *
 * @example
 * import { parentPort } from 'node:worker_threads'
 * import { expose } from 'comlink'
 * import { createEngineService } from 'chatfold'
 * import { portEndpoint } from 'chatfold/node'
 * expose(createEngineService(), portEndpoint(parentPort!))
 *
 * @since 0.1.0
 * @category engine
 */
export const portEndpoint = (port: NodePort): Endpoint => nodeEndpoint(port as Parameters<typeof nodeEndpoint>[0])
