/**
 * The chat handler served by `Deno.serve` on 127.0.0.1 (a random port) and driven with fetch.
 * Runs only under `deno test`, which needs `--allow-net=127.0.0.1`; without it the test is
 * reported as ignored.
 */
import { expect } from 'expect'
import { createChatHandler } from '../../../src/store/http.ts'
import { createChatStore } from '../../../src/store/store.ts'

type Server = { readonly finished: Promise<void>; shutdown(): Promise<void>; readonly addr: { readonly port: number } }
declare const Deno: {
  test(def: { name: string; ignore?: boolean; fn: () => Promise<void> }): void
  serve(options: { hostname: string; port: number; onListen?: () => void }, handler: (r: Request) => Promise<Response>): Server
  permissions: { querySync(d: { name: 'net'; host: string }): { state: string } }
}

const allowed = Deno.permissions.querySync({ name: 'net', host: '127.0.0.1' }).state === 'granted'

Deno.test({
  name: `chat handler under Deno.serve on 127.0.0.1${allowed ? '' : ' (ignored: run deno test with --allow-net=127.0.0.1)'}`,
  ignore: !allowed,
  fn: async () => {
    const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
    const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: () => undefined }, createChatHandler(store, { maxBodyBytes: 64 * 1024 }))
    const url = `http://127.0.0.1:${server.addr.port}`
    try {
      const post = (path: string, body: string) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const a = await post('/modalities/chat/submit', JSON.stringify({ role: 'user', content: "What's the weather?" }))
      expect(a.status).toBe(201)
      await a.body?.cancel()
      const s = await post(
        '/events',
        JSON.stringify({ scheduled_time: '2024-03-15T10:30:00Z', modality: 'chat', data: { role: 'assistant', content: 'Sunny.' } }),
      )
      expect(s.status).toBe(202)
      await s.body?.cancel()
      const adv = await post('/simulator/advance', JSON.stringify({ seconds: 3600 }))
      expect(adv.status).toBe(200)
      await adv.body?.cancel()
      const q = (await (await post('/environment/modalities/chat/query', JSON.stringify({ conversation_id: 'default' }))).json()) as {
        messages: Array<{ content: string }>
      }
      expect(q.messages.map((m) => m.content)).toEqual(["What's the weather?", 'Sunny.'])
      const bad = await post('/modalities/chat/submit', JSON.stringify({ role: 'bot', content: '' }))
      const badBody = (await bad.json()) as { error: { issues: Array<{ path: string }> } }
      expect(bad.status).toBe(400)
      expect(badBody.error.issues.map((i) => i.path)).toEqual(['role', 'content'])
      const big = await post('/modalities/chat/submit', 'x'.repeat(200_000))
      expect(big.status).toBe(413)
      await big.body?.cancel()
      const nf = await fetch(`${url}/nope`)
      expect(nf.status).toBe(404)
      await nf.body?.cancel()
      expect(store.state().updateCount).toBe(2)
    } finally {
      await server.shutdown()
    }
  },
})
