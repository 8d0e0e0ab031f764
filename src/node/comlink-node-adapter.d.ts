/**
 * The type of Comlink's Node adapter: Comlink ships it as dist/esm/node-adapter.d.ts, which
 * TypeScript does not pick up for the `.mjs` file under NodeNext resolution (TS7016); this states
 * the same signature.
 */
declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink'
  /** A `worker_threads` `Worker` or `MessagePort`, as Comlink's adapter takes it. */
  export interface NodeEndpoint {
    postMessage(message: unknown, transfer?: ReadonlyArray<unknown>): void
    on(type: string, listener: (value: unknown) => void): unknown
    off(type: string, listener: (value: unknown) => void): unknown
    start?: () => void
  }
  export default function nodeEndpoint(nep: NodeEndpoint): Endpoint
}
