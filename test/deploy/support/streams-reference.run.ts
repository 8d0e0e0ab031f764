/**
 * The Durable Streams conformance suite against the protocol's reference server
 * (`@durable-streams/server`, in memory), run once in a child vitest by
 * `test/deploy/streams-conformance.test.ts` to learn which tests the reference passes here.
 */
import { DurableStreamTestServer } from '@durable-streams/server'
import { runConformanceTests } from '@durable-streams/server-conformance-tests'
import { afterAll, beforeAll } from 'vitest'

const config = { baseUrl: '' }
let server: DurableStreamTestServer | undefined

beforeAll(async () => {
  server = new DurableStreamTestServer({ port: 0, host: '127.0.0.1' })
  config.baseUrl = await server.start()
})

afterAll(async () => {
  await server?.stop()
})

runConformanceTests(config)
