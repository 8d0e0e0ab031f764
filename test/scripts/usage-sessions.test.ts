import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import * as E from 'fp-ts/Either'
import { calibrationFromUsage } from '../../src/counting/count.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { text } from '../../src/message/part-make.ts'
import { fitLine, formatOf, loadSession, peerModel, promptOf, recordedRequests, sessionFiles, withPromptAsInput } from '../../scripts/bench/usage-sessions.ts'

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures')
const reply = (id: string, model: string, usage: Record<string, number>, extra: Record<string, unknown> = {}) =>
  makeMessage({ id, role: 'assistant', parts: [text(`reply ${id}`)], model, provider: 'anthropic', metadata: { usage, ...extra } })

describe('the usage bench: rebuilding recorded requests (scripts/bench/usage-sessions.ts)', () => {
  it('tells each fixture by its content, and refuses a file of none of the four tools', () => {
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      ['claude-code/session.jsonl', 'claude-code'],
      ['codex/rollout-2026-03-14T09-12-04-019a7c2e-5d41-7a90-8c3e-2f6b1d0e9a47.jsonl', 'codex'],
      ['gemini-cli/session-2026-04-02T16-30-6f0c2d1e.json', 'gemini-cli'],
      ['gemini-cli/session-2026-05-11T08-00-9a8b7c6d.jsonl', 'gemini-cli'],
      ['opencode/ses_3f1a9c0e2ffeQ7mK2vLb8xYz4D.json', 'opencode'],
      ['anthropic-stream.json', undefined],
    ]
    for (const [file, format] of cases) expect(formatOf(file, readFileSync(join(fixtures, file), 'utf8')), file).toBe(format)
    // the name is only a hint: a Codex rollout under another name is still one
    expect(formatOf('x.jsonl', readFileSync(join(fixtures, cases[1]?.[0] ?? ''), 'utf8'))).toBe('codex')
  })

  it('walks a folder for session files, leaving sub-agent folders to their parent file', () => {
    const files = sessionFiles(join(fixtures, 'claude-code')).map((f) => f.slice(fixtures.length + 1))
    expect(files).toContain('claude-code/7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl')
    expect(files.some((f) => f.includes('subagents'))).toBe(false)
    expect(files.some((f) => f.endsWith('.md'))).toBe(false)
  })

  it('reads the prompt as the usage contract has it for every tool: input + cacheRead + cacheWrite', () => {
    // the Codex and Gemini CLI readers take the cached tokens out of their providers' input counts
    const u = { input: 3_176, output: 188, cacheRead: 2_944, cacheWrite: 0 }
    for (const format of ['codex', 'gemini-cli', 'claude-code'] as const) expect(promptOf(format, u)).toBe(6_120)
    expect(promptOf('opencode', { ...u, cacheWrite: 100 })).toBe(6_220)
  })

  it("rebuilds each report's prompt from the messages before it, anchoring on the same model's previous report only", () => {
    const u1 = textMessage('user', 'Rename fetchUser to loadUser.', { id: 'u1' })
    const a1 = reply('a1', 'claude-sonnet-4-5', { input: 5, output: 40, cacheRead: 9_000 })
    const sub = reply('s1', 'claude-haiku-4-5', { input: 3, output: 10 }, { subagent: { toolCallId: 'c1' } })
    const u2 = textMessage('user', 'Now the tests.', { id: 'u2' })
    const a2 = reply('a2', 'claude-opus-4-6', { input: 7, output: 20, cacheRead: 9_100 })
    const err = reply('e1', '<synthetic>', { input: 0, output: 0 })
    const a3 = reply('a3', 'claude-sonnet-4-5', { input: 2, output: 30, cacheRead: 9_300 })
    const { requests, leftOut } = recordedRequests('claude-code', [u1, a1, sub, u2, a2, err, a3])
    expect(requests.map((r) => [r.reply.id, r.reported, r.messages.map((m) => m.id), r.previous?.messageId])).toEqual([
      ['a1', 9_005, ['u1'], undefined],
      ['a2', 9_107, ['u1', 'a1', 'u2'], undefined], // another model: a1's report anchors nothing
      ['a3', 9_302, ['u1', 'a1', 'u2', 'a2', 'e1'], 'a1'],
    ])
    expect(requests[2]?.previous).toEqual({ messageId: 'a1', prompt: 9_005, output: 40 })
    expect(leftOut).toEqual({ subconversation: 1, noPrompt: 1, noProvider: 0 })
  })

  it('hands calibrationFromUsage the same prompt the library reads from the usage', () => {
    const ms = [
      textMessage('user', 'List the files of the repository and say which are tests.'),
      reply('a1', 'gpt-5-codex', { input: 1_000, output: 50, cacheRead: 3_000 }),
    ]
    const asRead = calibrationFromUsage({})(ms) ?? 0
    const rebuilt = calibrationFromUsage({})(withPromptAsInput('codex', ms)) ?? 0
    expect(rebuilt).toBeGreaterThan(0)
    expect(asRead / rebuilt).toBeCloseTo(1, 5)
    expect(withPromptAsInput('claude-code', ms)[1]?.metadata?.['usage']).toEqual({ input: 4_000, output: 50 })
  })

  it("names ai-tokenizer's model for a reply's model: exact, else the newest of its family, else the provider's default", () => {
    const keys = [
      'anthropic/claude-sonnet-4',
      'anthropic/claude-sonnet-4.5',
      'anthropic/claude-opus-4',
      'anthropic/claude-opus-4.1',
      'anthropic/claude-opus-4.5',
      'anthropic/claude-3.5-haiku',
      'openai/gpt-5-codex',
      'google/gemini-2.5-pro',
    ]
    const fallback = { anthropic: 'anthropic/claude-sonnet-4.5', openai: 'openai/gpt-5', google: 'google/gemini-2.5-pro' } as const
    expect(peerModel(keys, 'anthropic', 'claude-sonnet-4-5-20250929', fallback)).toEqual({ key: 'anthropic/claude-sonnet-4.5', exact: true })
    expect(peerModel(keys, 'anthropic', 'claude-sonnet-4-20250514', fallback)).toEqual({ key: 'anthropic/claude-sonnet-4', exact: true })
    expect(peerModel(keys, 'anthropic', 'claude-3-5-haiku-20241022', fallback)).toEqual({ key: 'anthropic/claude-3.5-haiku', exact: true })
    expect(peerModel(keys, 'anthropic', 'claude-opus-4-6', fallback)).toEqual({ key: 'anthropic/claude-opus-4.5', exact: false })
    expect(peerModel(keys, 'openai', 'gpt-5-codex', fallback)).toEqual({ key: 'openai/gpt-5-codex', exact: true })
    expect(peerModel(keys, 'google', 'gemini-9-ultra', fallback)).toEqual({ key: 'google/gemini-2.5-pro', exact: false })
    expect(peerModel(keys, 'openai', undefined, fallback)).toEqual({ key: 'openai/gpt-5', exact: false })
  })

  it('reads every fixture with recorded usage into requests whose prompts precede their replies', () => {
    for (const file of sessionFiles(fixtures)) {
      const s = loadSession(file)
      if (E.isLeft(s)) continue
      const index = new Map(s.right.messages.map((m, i) => [m.id, i]))
      const { requests } = recordedRequests(s.right.format, s.right.messages)
      for (const r of requests) {
        const at = s.right.messages.indexOf(r.reply)
        expect(at, file).toBeGreaterThan(0)
        expect(r.messages.length, file).toBeGreaterThan(0)
        for (const m of r.messages) expect(index.get(m.id) ?? Infinity, `${file} ${m.id}`).toBeLessThan(at)
      }
    }
    const read = sessionFiles(fixtures).flatMap((f) => {
      const s = loadSession(f)
      return E.isRight(s) ? [s.right.format] : []
    })
    expect(new Set(read)).toEqual(new Set(['claude-code', 'codex', 'gemini-cli', 'opencode']))
  })

  it("fits reported = fixed + ratio × count through a session's requests, and declines too few or degenerate points", () => {
    const line = fitLine([
      [1_000, 26_250],
      [5_000, 31_250],
      [20_000, 50_000],
      [41_000, 76_250],
    ])
    expect(line?.ratio).toBeCloseTo(1.25, 9)
    expect(line?.fixed).toBeCloseTo(25_000, 6)
    expect(fitLine([[1, 2], [3, 4]])).toBeUndefined()
    expect(fitLine([[7, 1], [7, 2], [7, 3]])).toBeUndefined()
  })
})
