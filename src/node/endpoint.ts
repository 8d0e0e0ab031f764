/**
 * Comlink endpoints over Node's `worker_threads`: a `Worker` or `MessagePort` emits raw message data
 * to `on('message')` listeners, where Comlink expects `addEventListener` and events with `data`.
 *
 * @module
 */
import type { Endpoint } from 'comlink'

type NodePort = {
  postMessage(value: unknown, transferList?: ReadonlyArray<unknown>): void
  on(event: 'message', listener: (value: unknown) => void): unknown
  off(event: 'message', listener: (value: unknown) => void): unknown
  start?: () => void
}

type Listener = Parameters<Endpoint['addEventListener']>[1]

/** Hands `data` to a DOM-style listener as the `MessageEvent` a Web port would give it. */
const deliver = (listener: Listener, data: unknown): void => {
  const event = new MessageEvent('message', { data })
  if (typeof listener === 'function') listener(event)
  else listener.handleEvent(event)
}

const nodeEndpoint = (port: NodePort): Endpoint => {
  // each DOM-style listener, and the raw-data listener it was attached as
  const attached = new WeakMap<Listener, (value: unknown) => void>()
  return {
    postMessage: (message: unknown, transfer?: ReadonlyArray<unknown>) => port.postMessage(message, transfer),
    addEventListener: (_type, listener) => {
      const raw = (data: unknown): void => deliver(listener, data)
      port.on('message', raw)
      attached.set(listener, raw)
    },
    removeEventListener: (_type, listener) => {
      const raw = attached.get(listener)
      if (raw === undefined) return
      port.off('message', raw)
      attached.delete(listener)
    },
    start: () => port.start?.(),
  }
}

/**
 * Adapts a `worker_threads` `Worker` or `MessagePort` to a Comlink endpoint (as Comlink's own Node adapter does).
 *
 * @example
 * import { MessageChannel } from 'node:worker_threads'
 * import * as Comlink from 'comlink'
 * import { portEndpoint } from 'chatfold/node'
 * const { port1, port2 } = new MessageChannel()
 * Comlink.expose({ ping: () => 'pong' }, portEndpoint(port1))
 * const remote = Comlink.wrap<{ ping: () => string }>(portEndpoint(port2))
 * await remote.ping() // 'pong'
 * port1.close()
 *
 * @since 0.1.0
 * @category engine
 */
export const portEndpoint = (port: NodePort): Endpoint => nodeEndpoint(port)
