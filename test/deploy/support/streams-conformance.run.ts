/**
 * The Durable Streams conformance suite against one server, run in a child vitest by
 * `test/deploy/streams-conformance.test.ts`: the server at `CHATFOLD_STREAMS_URL`, or, when it is
 * not set, the protocol's reference server (`@durable-streams/server`, in memory), to learn which
 * tests the reference passes here.
 */
import { DurableStreamTestServer } from '@durable-streams/server'
import { runConformanceTests } from '@durable-streams/server-conformance-tests'
import { afterAll, beforeAll } from 'vitest'

const config = { baseUrl: process.env['CHATFOLD_STREAMS_URL'] ?? '' }
let server: DurableStreamTestServer | undefined

beforeAll(async () => {
  if (config.baseUrl !== '') return
  server = new DurableStreamTestServer({ port: 0, host: '127.0.0.1' })
  config.baseUrl = await server.start()
})

afterAll(async () => {
  await server?.stop()
})

runConformanceTests(config)
