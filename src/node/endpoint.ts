/**
 * Comlink endpoints over Node's `worker_threads`: Comlink's own Node adapter (a `Worker` or
 * `MessagePort` emits raw message data to `on('message')` listeners, where Comlink expects
 * `addEventListener` and events with `data`).
 *
 * @module
 */
import type { Endpoint } from 'comlink'
import * as adapter from 'comlink/dist/esm/node-adapter.mjs'

type NodePort = {
  postMessage(value: unknown, transferList?: ReadonlyArray<unknown>): void
  on(event: 'message', listener: (value: unknown) => void): unknown
  off(event: 'message', listener: (value: unknown) => void): unknown
}

type NodeEndpointFn = (nep: NodePort) => Endpoint

/**
 * Comlink's `nodeEndpoint`, the adapter module's default export. TypeScript reads the `.mjs` file as
 * an ES module and Deno's checker as CommonJS (through the `.d.ts` beside it), so the two disagree on
 * what `default` is; at run time it is the function in both, which this reads as a value of unknown
 * type and checks before calling.
 */
const adapterDefault: unknown = Reflect.get(adapter, 'default')

const nodeEndpoint: NodeEndpointFn = (port) => {
  if (typeof adapterDefault !== 'function') throw new TypeError("Comlink's Node adapter (comlink/dist/esm/node-adapter.mjs) has no default export")
  const endpoint: Endpoint = Reflect.apply(adapterDefault, undefined, [port])
  return endpoint
}

/**
 * Adapts a `worker_threads` `Worker` or `MessagePort` to a Comlink endpoint (Comlink's `nodeEndpoint`).
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
