import { describe, expect, it } from 'vitest'
import { openStreamsHandler } from '../../src/streams/handler.ts'
import { memoryStreamsStorage, type StreamRecord, type StreamsStorage } from '../../src/streams/log.ts'

const TOKEN = 'streams-test-token-0123456789'
const READ = 'streams-read-token-0123456789'
const url = 'http://localhost/streams/chat/1'
const put = (headers: Record<string, string> = {}) => new Request(url, { method: 'PUT', headers: { 'content-type': 'text/plain', ...headers } })
const post = (body: string, headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body })
const get = (headers: Record<string, string> = {}) => new Request(`${url}?offset=-1`, { headers })

describe('the Durable Streams handler', () => {
  it('asks the token for every request, and the read-only token only reads', async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage(), { token: TOKEN, readToken: READ })
    expect((await streams.handle(put())).status).toBe(401)
    expect((await streams.handle(put({ authorization: 'Bearer nope-nope-nope-nope' }))).status).toBe(401)
    expect((await streams.handle(put({ authorization: `Bearer ${READ}` }))).status).toBe(403)
    expect((await streams.handle(put({ authorization: `Bearer ${TOKEN}` }))).status).toBe(201)
    expect((await streams.handle(post('a', { authorization: `Bearer ${READ}` }))).status).toBe(403)
    expect((await streams.handle(post('a', { authorization: `Bearer ${TOKEN}` }))).status).toBe(204)
    const read = await streams.handle(get({ authorization: `Bearer ${READ}` }))
    expect(read.status).toBe(200)
    expect(await read.text()).toBe('a')
  })

  it('refuses a foreign Origin and a Host it does not answer for', async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage(), { allowedHosts: ['localhost'] })
    expect((await streams.handle(put({ origin: 'https://elsewhere.example' }))).status).toBe(403)
    expect((await streams.handle(new Request(url, { method: 'PUT', headers: { host: 'evil.example' } }))).status).toBe(403)
  })

  it('answers no 2xx for an append the log did not keep, and shows it to no reader', async () => {
    let fail = false
    const kept = memoryStreamsStorage()
    const storage: StreamsStorage = { ...kept, append: (rs: ReadonlyArray<StreamRecord>) => (fail ? Promise.reject(new Error('disk full')) : kept.append(rs)) }
    const streams = await openStreamsHandler(storage)
    expect((await streams.handle(put())).status).toBe(201)
    expect((await streams.handle(post('kept'))).status).toBe(204)
    fail = true
    expect((await streams.handle(post('lost'))).status).toBe(503)
    expect(await (await streams.handle(get())).text()).toBe('kept')
    // writes stay refused, saying why; reads are served
    fail = false
    const again = await streams.handle(post('later'))
    expect(again.status).toBe(503)
    expect(await again.text()).toContain('disk full')
    expect(streams.failure()).toContain('disk full')
  })

  it('replays its log: data, closure and producer state survive a restart', async () => {
    const storage = memoryStreamsStorage()
    const a = await openStreamsHandler(storage)
    await a.handle(put())
    const producer = { 'producer-id': 'p', 'producer-epoch': '0', 'producer-seq': '0' }
    expect((await a.handle(post('one', producer))).status).toBe(200)
    const b = await openStreamsHandler(storage)
    // the retry after the restart is recognised as a duplicate
    expect((await b.handle(post('one', producer))).status).toBe(204)
    expect((await b.handle(post('two', { ...producer, 'producer-seq': '1' }))).status).toBe(200)
    expect(await (await b.handle(get())).text()).toBe('onetwo')
  })
})

describe('the log encoding', () => {
  it('writes base64 as the standard alphabet does, every length and byte', async () => {
    const { toBase64 } = await import('../../src/streams/_state.ts')
    for (let n = 0; n < 300; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 151 + n * 7) & 255)
      expect(toBase64(bytes)).toBe(btoa(String.fromCharCode(...bytes)))
    }
  })
})

describe('CORS on the streams', () => {
  it('answers a preflight from an admitted origin as the reference server does, and refuses one from another', async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage(), { allowedHosts: ['localhost', 'app.example'], token: TOKEN })
    const ok = await streams.handle(
      new Request(url, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } }),
    )
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(ok.headers.get('access-control-allow-methods')).toContain('OPTIONS')
    expect(ok.headers.get('access-control-allow-headers')).toContain('Producer-Seq')
    const refused = await streams.handle(new Request(url, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example' } }))
    expect(refused.status).toBe(403)
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    // the answers to an admitted page expose the protocol's headers; the token is still asked
    const created = await streams.handle(put({ origin: 'https://app.example', authorization: `Bearer ${TOKEN}` }))
    expect(created.status).toBe(201)
    expect(created.headers.get('access-control-allow-origin')).toBe('https://app.example')
    expect(created.headers.get('access-control-expose-headers')).toContain('Stream-Next-Offset')
    expect((await streams.handle(put({ origin: 'https://app.example' }))).status).toBe(401)
  })
})
