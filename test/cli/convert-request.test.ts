import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'

const dir = mkdtempSync(join(tmpdir(), 'chatfold-request-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

/** An Anthropic request as an agent sends it: a tool, a tool choice, settings and a field only Anthropic knows. */
const anthropicBody = {
  model: 'claude-sonnet-4-5',
  max_tokens: 2048,
  temperature: 0.2,
  system: 'You are a coding agent.',
  thinking: { type: 'enabled', budget_tokens: 1024 },
  tool_choice: { type: 'auto' },
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file of the project',
      input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
  ],
  messages: [{ role: 'user', content: 'Why does the cart test fail?' }],
}
const file = join(dir, 'request.json')
writeFileSync(file, JSON.stringify(anthropicBody))

describe('convert keeps the request, not only its messages', () => {
  it('gives the same request back for the same provider', async () => {
    const r = await cli('convert', file, '--to', 'anthropic')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toEqual(anthropicBody)
  })

  it('offers another provider the same tools and settings, and names what it cannot carry', async () => {
    const r = await cli('convert', file, '--to', 'openai-chat', '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const body = JSON.parse(r.out) as Record<string, unknown>
    expect(body).toMatchObject({ model: 'claude-sonnet-4-5', temperature: 0.2, tool_choice: 'auto' })
    expect(body['tools']).toEqual([
      expect.objectContaining({
        type: 'function',
        function: expect.objectContaining({ name: 'read_file', description: 'Reads a file of the project', parameters: anthropicBody.tools[0]?.input_schema }),
      }),
    ])
    const notes = (JSON.parse(r.err) as { notes: ReadonlyArray<{ kind: string; name?: string; setting?: string }> }).notes
    expect(notes).toContainEqual(expect.objectContaining({ kind: 'tool_dropped', name: 'web_search_20250305' }))
    expect(notes.some((n) => n.kind === 'setting_dropped' && (n.setting ?? '').includes('thinking'))).toBe(true)
  })

  it('names every part of the envelope a format of messages only leaves out', async () => {
    const r = await cli('convert', file, '--to', 'chatfold-jsonl', '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const notes = (JSON.parse(r.err) as { notes: ReadonlyArray<{ kind: string; name?: string; setting?: string }> }).notes
    expect(notes.filter((n) => n.kind === 'tool_dropped').map((n) => n.name)).toEqual(['read_file', 'anthropic web_search_20250305'])
    expect(notes.filter((n) => n.kind === 'setting_dropped').map((n) => n.setting)).toEqual(
      expect.arrayContaining(['model', 'toolChoice', 'maxOutputTokens', 'temperature', 'anthropic.thinking']),
    )
  })
})
