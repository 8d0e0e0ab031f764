// The child vitest runs of the Durable Streams conformance suite (one per server, side by side).
// A test is tried twice: under the suite's load on a busy machine a pooled keep-alive socket can be
// closed by the server as the client reuses it ("other side closed"), a transport race and not a
// protocol failure.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: { include: ['test/deploy/support/streams-conformance.run.ts'], environment: 'node', testTimeout: 60_000, hookTimeout: 60_000, retry: 1 },
})
