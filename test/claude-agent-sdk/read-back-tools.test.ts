import { describe, expect, it } from 'vitest'
import { createSdkMcpServer } from '@anthropic-ai/claude-agent-sdk'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { z } from 'zod'
import { readBackMcpTools } from '../../src/claude-agent-sdk/read-back-tools.ts'
import { toolFixture } from '../support/read-back-tools.ts'

describe('readBackMcpTools', () => {
  it("are served by the SDK's createSdkMcpServer and called over MCP as the agent calls them", async () => {
    const { history, pruned, ref, original } = toolFixture()
    const server = createSdkMcpServer({ name: 'chatfold', tools: readBackMcpTools({ source: () => history, z, maxBytes: 64 }) })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await server.instance.connect(a)
    const client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(b)
    const listed = await client.listTools()
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['read_pruned_output', 'search_history'])
    // every page, put together, is the original
    let text = ''
    let offset: number | undefined = 0
    while (offset !== undefined) {
      const r = (await client.callTool({ name: 'read_pruned_output', arguments: { ref, offset } })) as { content: Array<{ text: string }> }
      text += r.content[0]!.text
      offset = (JSON.parse(r.content[1]!.text) as { next?: number }).next
    }
    expect(text).toBe(original)
    const hits = (await client.callTool({ name: 'search_history', arguments: { query: 'run 2' } })) as { content: Array<{ text: string }> }
    expect((JSON.parse(hits.content[0]!.text) as { hits: unknown[] }).hits.length).toBeGreaterThan(0)
    // a source that is itself pruned no longer holds the output: an error result that says so
    const gone = createSdkMcpServer({ name: 'gone', tools: readBackMcpTools({ source: () => pruned, z }) })
    const [c, d] = InMemoryTransport.createLinkedPair()
    await gone.instance.connect(c)
    const client2 = new Client({ name: 'test', version: '1.0.0' })
    await client2.connect(d)
    const err = (await client2.callTool({ name: 'read_pruned_output', arguments: { ref } })) as { isError?: boolean; content: Array<{ text: string }> }
    expect(err.isError).toBe(true)
    expect(err.content[0]!.text).toMatch(/no longer there .*a placeholder/)
    await client.close()
    await client2.close()
  })
})
