import { describe, expect, it } from 'vitest'
import { generateText, stepCountIs } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { readBackAITools } from '../../src/ai-sdk/read-back-tools.ts'
import { toolFixture } from '../support/read-back-tools.ts'

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } }

describe('readBackAITools', () => {
  it('reads a pruned result back when the model calls it in generateText, and pages a long one', async () => {
    const { history, ref, original } = toolFixture()
    const seen: unknown[] = []
    let step = 0
    const calls = [
      { toolName: 'read_pruned_output', input: JSON.stringify({ ref, offset: null }) },
      { toolName: 'read_pruned_output', input: JSON.stringify({ ref, offset: 100 }) },
      { toolName: 'search_history', input: JSON.stringify({ query: 'ENOENT', match: null, limit: 3 }) },
      { toolName: 'read_pruned_output', input: JSON.stringify({ ref: 'call_x@0000000000000000', offset: null }) },
    ]
    const model = new MockLanguageModelV3({
      doGenerate: async ({ tools }) => {
        seen.push(tools)
        const c = calls[step]
        step++
        return c === undefined
          ? { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
          : { content: [{ type: 'tool-call', toolCallId: `t${step}`, ...c }], finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage, warnings: [] }
      },
    })
    const r = await generateText({ model, tools: readBackAITools({ source: () => history, maxBytes: 100 }), stopWhen: stepCountIs(6), prompt: 'Go on.' })
    const outputs = r.steps.flatMap((s) => s.toolResults).map((x) => x.output as Record<string, unknown>)
    expect(outputs[0]).toMatchObject({ ref, offset: 0, next: 100, text: new TextDecoder().decode(new TextEncoder().encode(original).subarray(0, 100)) })
    expect(outputs[1]).toMatchObject({ ref, offset: 100 })
    expect((outputs[2]?.['hits'] as unknown[]).length).toBeGreaterThan(0)
    expect(outputs[3]).toEqual({ error: expect.stringMatching(/^Cannot read back call_x@0{8}: no message/) })
    // the model is sent each tool's JSON Schema
    const sent = seen[0] as ReadonlyArray<{ name: string; inputSchema: { properties: Record<string, unknown> } }>
    expect(sent.map((t) => t.name).sort()).toEqual(['read_pruned_output', 'search_history'])
    expect(Object.keys(sent.find((t) => t.name === 'read_pruned_output')!.inputSchema.properties)).toEqual(['ref', 'offset'])
  })
})
