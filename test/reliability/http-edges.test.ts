/**
 * The served store's answers at the edges of HTTP: a body over the limit is read to its end (up
 * to 4 MiB) before its 413, so that a client still sending reads the answer rather than a reset,
 * and the connection goes on serving.
 */
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createChatHandler } from '../../src/store/http.ts'
import { createChatStore } from '../../src/store/store.ts'
import { serve } from '../../src/node/http.ts'

/** Sends `bytes` on one connection and resolves with everything answered until the server ends it or `until` matches. */
const exchange = (port: number, bytes: ReadonlyArray<Uint8Array | string>, until: RegExp): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' })
    let text = ''
    socket.on('data', (d) => {
      text += d.toString()
      if (until.test(text)) socket.end()
    })
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
    for (const b of bytes) socket.write(b)
  })

describe('HTTP edges', () => {
  it('a body over the limit is read before its 413, and the connection serves the next request', async () => {
    const running = await serve(createChatHandler(createChatStore(), { maxBodyBytes: 1024 }))
    try {
      const port = Number(new URL(running.url).port)
      const size = 2 * 1_048_576
      for (const framing of [`content-length: ${size}`, 'transfer-encoding: chunked']) {
        const body = new Uint8Array(size).fill(0x20)
        const sent = framing.startsWith('content-length') ? [body] : [`${size.toString(16)}\r\n`, body, '\r\n0\r\n\r\n']
        const got = await exchange(
          port,
          [
            `POST /modalities/chat/submit HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`,
            ...sent,
            'GET /environment/modalities/chat HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n',
          ],
          /"modality_type"/,
        )
        expect([...got.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1])).toEqual(['413', '200'])
      }
    } finally {
      await running.close()
    }
  }, 60_000)
})
