/**
 * portEndpoint: a `worker_threads` port as the Web-style endpoint Comlink talks to, listeners as
 * functions or as objects with `handleEvent`, each removable.
 */
import { MessageChannel } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'
import { portEndpoint } from '../../src/node/endpoint.ts'

/** Resolves with the data of the next message `listen` hears. */
const next = (listen: (onData: (data: unknown) => void) => void): Promise<unknown> => new Promise((resolve) => listen(resolve))

describe('portEndpoint', () => {
  it('delivers each message as an event with its data, to a function and to a handleEvent object, until removed', async () => {
    const { port1, port2 } = new MessageChannel()
    const near = portEndpoint(port1)
    const far = portEndpoint(port2)
    try {
      const heardByFunction: unknown[] = []
      const fn = (e: Event) => void heardByFunction.push((e as MessageEvent).data)
      near.addEventListener('message', fn)
      const first = next((onData) => near.addEventListener('message', { handleEvent: (e) => onData((e as MessageEvent).data) }))
      near.start?.()
      far.postMessage({ n: 1 })
      expect(await first).toEqual({ n: 1 })
      expect(heardByFunction).toEqual([{ n: 1 }])
      near.removeEventListener('message', fn)
      const second = next((onData) => near.addEventListener('message', (e) => onData((e as MessageEvent).data)))
      far.postMessage({ n: 2 })
      expect(await second).toEqual({ n: 2 })
      expect(heardByFunction).toEqual([{ n: 1 }])
    } finally {
      port1.close()
    }
  })
})
