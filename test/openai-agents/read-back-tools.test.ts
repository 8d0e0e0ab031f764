import { describe, expect, it } from 'vitest'
import { RunContext, tool } from '@openai/agents'
import { readBackAgentTools } from '../../src/openai-agents/read-back-tools.ts'
import { toolFixture } from '../support/read-back-tools.ts'

describe('readBackAgentTools', () => {
  it("are function tools in the shape the SDK's tool() makes, invoked with the model's JSON text as the SDK invokes them", async () => {
    const { history, ref, original } = toolFixture()
    const [read, search] = readBackAgentTools({ source: () => history })
    const made = tool({
      name: 'x',
      description: 'x',
      parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      strict: true,
      execute: () => '',
    })
    for (const t of [read, search])
      for (const k of ['type', 'name', 'description', 'parameters', 'strict', 'invoke', 'needsApproval', 'isEnabled']) expect(t).toHaveProperty(k)
    expect(read.type).toBe(made.type)
    expect(await read.needsApproval(new RunContext(), '{}', 'c')).toBe(false)
    const page = JSON.parse(String(await read.invoke(new RunContext(), JSON.stringify({ ref, offset: null })))) as { text: string; next?: number }
    expect(page.text).toBe(original)
    expect(page.next).toBeUndefined()
    const found = JSON.parse(String(await search.invoke(new RunContext(), JSON.stringify({ query: 'run 1', match: 'text', limit: 2 })))) as { hits: unknown[] }
    expect(found.hits).toHaveLength(2)
    expect(JSON.parse(String(await read.invoke(new RunContext(), '{"ref":1}')))).toEqual({
      error: expect.stringMatching(/^Cannot read the tool input: ref: expected string/),
    })
  })
})
