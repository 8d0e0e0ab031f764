/**
 * Comlink endpoints over Node's `worker_threads`: a `Worker` or `MessagePort` emits raw message
 * data to `on('message')` listeners, where Comlink expects `addEventListener` and events with `data`.
 *
 * @module
 */
import type { Endpoint } from 'comlink'

type NodePort = {
  postMessage(value: unknown, transferList?: ReadonlyArray<unknown>): void
  on(event: 'message', listener: (value: unknown) => void): unknown
  off(event: 'message', listener: (value: unknown) => void): unknown
}

/**
 * Adapts a `worker_threads` `Worker` or `MessagePort` to a Comlink endpoint.
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
export const portEndpoint = (port: NodePort): Endpoint => {
  const listeners = new Map<EventListenerOrEventListenerObject, (value: unknown) => void>()
  return {
    postMessage: (message, transfer) => port.postMessage(message, transfer),
    addEventListener: (type, listener) => {
      if (type !== 'message' || listeners.has(listener)) return
      const f = (data: unknown): void => {
        const event = { data } as MessageEvent
        if (typeof listener === 'function') listener(event)
        else listener.handleEvent(event)
      }
      listeners.set(listener, f)
      port.on('message', f)
    },
    removeEventListener: (type, listener) => {
      const f = listeners.get(listener)
      if (type !== 'message' || f === undefined) return
      listeners.delete(listener)
      port.off('message', f)
    },
  }
}
