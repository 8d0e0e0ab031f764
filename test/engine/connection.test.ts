/**
 * The engine's connection to a worker: every operation is called at its own type, and still the
 * worker's endpoint is listened on once (Node warns past ten listeners of one event), and every
 * answer reaches the call that asked for it.
 */
import { type Endpoint, expose } from 'comlink'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/client.ts'
import { createEngineService } from '../../src/engine/service.ts'
import { textMessage } from '../../src/message/message.ts'

describe('a worker connection', () => {
  it('listens on the endpoint once, however many operations it calls, and answers each call its own result', async () => {
    const { port1, port2 } = new MessageChannel()
    expose(createEngineService(), port1)
    const listening = new Set<unknown>()
    const endpoint: Endpoint = {
      postMessage: (message: unknown, transfers?: Transferable[]) => port2.postMessage(message, transfers ?? []),
      addEventListener: (type, listener) => {
        listening.add(listener)
        port2.addEventListener(type, listener)
      },
      removeEventListener: (type, listener) => {
        listening.delete(listener)
        port2.removeEventListener(type, listener)
      },
      start: () => port2.start(),
    }
    const engine = createEngine({
      mode: 'worker',
      encoding: 'heuristic',
      workers: 1,
      sliceBytes: 64,
      host: () => ({ endpoint, onFailure: () => undefined, terminate: () => (port1.close(), port2.close()) }),
    })
    try {
      const history = [textMessage('user', 'a'.repeat(200)), textMessage('assistant', 'b'.repeat(200)), textMessage('user', 'c'.repeat(200))]
      const session = await engine.open('s', history)
      // calls of several operations in flight at once, their lists read in slices
      const [estimate, transcript, snapshot, counts, tokens] = await Promise.all([
        engine.estimate(history),
        engine.renderTranscript(history),
        session.snapshot(),
        session.counts(),
        session.tokens(),
      ])
      expect(estimate.messages).toBe(3)
      expect(transcript).toContain('a'.repeat(200))
      expect(snapshot).toEqual(history)
      expect(counts.map((c) => c.total).reduce((a, b) => a + b, 0)).toBe(estimate.total)
      expect(tokens).toEqual({ messages: 3, tokens: estimate.total })
      expect(listening.size).toBe(1)
    } finally {
      engine.dispose()
    }
  })
})
