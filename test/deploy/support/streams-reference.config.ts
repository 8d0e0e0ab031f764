// The child vitest run of the Durable Streams conformance suite against the reference server.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: { include: ['test/deploy/support/streams-reference.run.ts'], environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 },
})
