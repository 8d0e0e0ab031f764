import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { type WireApi, wireApis } from '../../src/adapters/vocabulary.ts'
import { checkRequest } from '../../src/adapters/rules.ts'

const fixture = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
/** A fixture of each format read by the readers added for chat exports and task folders, and the format it is detected as. */
const FIXTURES: ReadonlyArray<readonly [string, string]> = [
  ['cline', fixture('cline/1767949200000/api_conversation_history.json')],
  ['cline', fixture('cline/1768035600000/api_conversation_history.json')],
  ['cline', fixture('roo-code/0199a3c2-7d41-7b60-9e2f-5c8d1a4b7e30/api_conversation_history.json')],
  ['chatgpt', fixture('chatgpt/conversations.json')],
  ['chatgpt', fixture('chatgpt/conversations-image-gen.json')],
  ['chatgpt', fixture('chatgpt/conversations-connector.json')],
  ['chatgpt', fixture('chatgpt/conversations-gpt-5-pro.json')],
  ['claude-ai', fixture('claude-ai/conversations.json')],
  ['claude-ai', fixture('claude-ai/conversations-screenshot.json')],
  ['claude-ai', fixture('claude-ai/conversations-mcp.json')],
  ['copilot', fixture('copilot/3f1c2b0a-9d8e-4f7a-b6c5-1e2d3c4b5a69.json')],
  ['copilot', fixture('copilot/chat-export.json')],
  ['copilot', fixture('copilot/3f1c2b0a-9d8e-4f7a-b6c5-1e2d3c4b5a69.jsonl')],
  ['copilot', fixture('copilot/git-ai-session-simple.json')],
  ['copilot', fixture('copilot/git-ai-session-simple.jsonl')],
  ['copilot', fixture('copilot/git-ai-session-multiline.jsonl')],
  ['copilot-events', fixture('copilot/git-ai-vscode-event-stream.jsonl')],
  ['copilot-events', fixture('copilot/git-ai-cli-session-events.jsonl')],
  ['pi', fixture('pi/2025-12-09T00-53-29-825Z_ffae836b-9420-4060-ac13-7745215f90ff.jsonl')],
  ['pi', fixture('pi/2026-02-20T20-17-00-000Z_1a6f6bc4-2e7d-4c1a-9b8e-5f0d3c2a1b90.jsonl')],
]
const PROVIDERS: ReadonlyArray<WireApi> = wireApis

const tmp = mkdtempSync(join(tmpdir(), 'chatfold-readers-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

describe('the command line on each format', () => {
  it.each(FIXTURES)('stats detects %s by its signature (%s)', async (name, file) => {
    const r = await cli('stats', file, '--json', '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toMatchObject({ format: name })
  })

  it.each(FIXTURES)('render --format html writes a page of %s (%s)', async (_, file) => {
    const out = join(tmp, `${Math.random().toString(36).slice(2)}.html`)
    const r = await cli('render', file, '--format', 'html', '-o', out)
    expect(r.code, r.err).toBe(EXIT.ok)
    const page = readFileSync(out, 'utf8')
    expect(page).toMatch(/^<!doctype html>/i)
    expect(page.length).toBeGreaterThan(1000)
  })

  it.each(FIXTURES.flatMap(([name, file]) => PROVIDERS.map((p) => [name, p, file] as const)))(
    'convert of %s to %s passes check (%s)',
    async (_, provider, file) => {
      const r = await cli('convert', file, '--to', provider)
      expect(r.code, r.err).toBe(EXIT.ok)
      const body = join(tmp, `${provider}-${Math.random().toString(36).slice(2)}.json`)
      writeFileSync(body, r.out)
      expect(checkRequest(provider)(JSON.parse(r.out))).toEqual([])
      const c = await cli('check', body, '--provider', provider)
      expect(c.code, c.out + c.err).toBe(EXIT.ok)
    },
  )
})
