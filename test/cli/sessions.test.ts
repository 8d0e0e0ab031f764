import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { wireApis } from '../../src/adapters/vocabulary.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { type Message, textMessage } from '../../src/message/message.ts'

const fixture = (p: string): string => new URL(`../fixtures/${p}`, import.meta.url).pathname
const FIXTURES = {
  codex: fixture('codex/rollout-2026-03-14T09-12-04-019a7c2e-5d41-7a90-8c3e-2f6b1d0e9a47.jsonl'),
  'gemini-cli': fixture('gemini-cli/session-2026-04-02T16-30-6f0c2d1e.json'),
  'gemini-cli-jsonl': fixture('gemini-cli/session-2026-05-11T08-00-9a8b7c6d.jsonl'),
  opencode: fixture('opencode/ses_3f1a9c0e2ffeQ7mK2vLb8xYz4D.json'),
} as const
const PROVIDERS = wireApis
let dir = ''

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}
const decoded = (text: string): ReadonlyArray<Message> => {
  const r = fromJSONL(text)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}
const write = (name: string, text: string): string => {
  const f = join(dir, name)
  writeFileSync(f, text)
  return f
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-sessions-'))
})
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

describe('session files of other tools', () => {
  it.each(Object.entries(FIXTURES))('detects %s by its signature', async (name, file) => {
    const r = await cli('stats', file, '--json', '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toMatchObject({ format: name.replace(/-jsonl$/, '') })
  })

  it.each(Object.entries(FIXTURES).flatMap(([name, file]) => PROVIDERS.map((p) => [name, p, file] as const)))(
    'converts %s to %s without --repair, and the request follows its rules',
    async (_, provider, file) => {
      const r = await cli('convert', file, '--to', provider)
      expect(r.code, r.err).toBe(EXIT.ok)
      expect(checkRequest(provider)(JSON.parse(r.out))).toEqual([])
    },
  )

  it('writes what a recorded compaction replaced with convert --archive', async () => {
    const archive = join(dir, 'archive.jsonl')
    const r = await cli('convert', FIXTURES.codex, '--to', 'chatfold-jsonl', '--archive', archive, '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const archived = decoded(readFileSync(archive, 'utf8'))
    expect(JSON.parse(r.err)).toMatchObject({ archived: archived.length })
    expect(archived.some((m) => m.parts.some((p) => p.type === 'tool_call' && p.name === 'apply_patch'))).toBe(true)
  })
})

describe('detection that does not guess', () => {
  it('names the candidates and the lines that decided when a file fits several formats', async () => {
    const codex = readFileSync(FIXTURES.codex, 'utf8').split('\n')[0] as string
    const claude = '{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"Hi"}}'
    const file = write('both.jsonl', `${codex}\n${claude}\n`)
    const r = await cli('stats', file)
    expect(r.code).toBe(EXIT.input)
    expect(r.err).toContain('cannot tell the format')
    expect(r.err).toMatch(/claude-code \(line 2: .*\); codex \(line 1: type "session_meta"/)
    const forced = await cli('stats', file, '--from', 'codex', '--skip-bad-lines', '--json', '--encoding', 'heuristic')
    expect(forced.code, forced.err).toBe(EXIT.ok)
    expect(JSON.parse(forced.out)).toMatchObject({ format: 'codex', skipped: [{ line: 2 }] })
  })

  it('says what it saw when no format fits', async () => {
    const r = await cli('stats', write('none.json', '{"sessionId":"s","messages":[{"speaker":"x"}]}'))
    expect(r.code).toBe(EXIT.input)
    expect(r.err).toContain("no format's signature fits (one JSON document with sessionId, messages)")
  })

  it('does not take a Gemini CLI recording for an OpenAI Chat body', async () => {
    const r = await cli('convert', FIXTURES['gemini-cli'], '--to', 'chatfold-jsonl')
    expect(r.code, r.err).toBe(EXIT.ok)
    const ms = decoded(r.out)
    expect(ms.some((m) => m.parts.some((p) => p.type === 'tool_result' && toolResultText(p).includes('error TS5058')))).toBe(true)
  })

  it('reads a mix of AI SDK UI v4 and v5 messages as UI messages, parts winning over the legacy content', async () => {
    const mix = {
      messages: [
        { id: 'u1', role: 'user', content: 'Weather in Paris?', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          id: 'a1',
          role: 'assistant',
          content: '',
          parts: [
            { type: 'step-start' },
            { type: 'reasoning', reasoning: 'Need the forecast.', details: [{ type: 'text', text: 'Need the forecast.', signature: 'sig-1' }] },
            {
              type: 'tool-invocation',
              toolInvocation: { state: 'result', step: 0, toolCallId: 'call_1', toolName: 'getWeather', args: { city: 'Paris' }, result: { tempC: 21 } },
            },
            { type: 'step-start' },
            { type: 'text', text: 'It is 21°C in Paris.' },
          ],
        },
        { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'And in Rome?' }] },
        {
          id: 'a2',
          role: 'assistant',
          parts: [{ type: 'tool-getWeather', toolCallId: 'call_2', state: 'output-available', input: { city: 'Rome' }, output: { tempC: 24 } }, {
            type: 'text',
            text: 'Rome: 24°C.',
          }],
        },
      ],
    }
    const file = write('ui-mix.json', JSON.stringify(mix))
    const s = await cli('stats', file, '--json', '--encoding', 'heuristic')
    expect(s.code, s.err).toBe(EXIT.ok)
    expect(JSON.parse(s.out)).toMatchObject({ format: 'ui-messages' })
    const ms = decoded((await cli('convert', file, '--to', 'chatfold-jsonl')).out)
    const parts = ms.flatMap((m) => m.parts)
    expect(parts).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'text', text: 'It is 21°C in Paris.' }),
        expect.objectContaining({ type: 'reasoning', text: 'Need the forecast.', signature: 'sig-1' }),
        expect.objectContaining({ type: 'tool_call', id: 'call_1', name: 'getWeather', arguments: '{"city":"Paris"}' }),
        expect.objectContaining({ type: 'tool_result', toolCallId: 'call_1', content: '{"tempC":21}' }),
        expect.objectContaining({ type: 'tool_result', toolCallId: 'call_2', content: '{"tempC":24}' }),
      ]),
    )
  })
})

describe('--skip-bad-lines', () => {
  const broken = (text: string, at: number, bad: string): string => {
    const lines = text.split('\n')
    lines.splice(at - 1, 0, bad)
    return lines.join('\n')
  }

  it.each([
    ['codex', FIXTURES.codex, 5],
    ['gemini-cli', FIXTURES['gemini-cli-jsonl'], 3],
    ['chatfold-jsonl', '', 2],
    ['claude-code', new URL('../fixtures/claude-code/session.jsonl', import.meta.url).pathname, 3],
  ])('%s: without it the error names the line and suggests the flag; with it the rest is read and the line listed', async (format, source, at) => {
    const text = source === ''
      ? toJSONL([textMessage('user', 'hi', { id: 'a' }), textMessage('assistant', 'hello', { id: 'b' })])
      : readFileSync(source, 'utf8')
    const file = write(`bad-${format}.jsonl`, broken(text, at, '{"type":"response_item",'))
    const failed = await cli('stats', file, '--from', format)
    expect(failed.code).toBe(EXIT.input)
    expect(failed.err).toContain(`${file}:${at}`)
    expect(failed.err).toContain('--skip-bad-lines')
    const human = await cli('stats', file, '--from', format, '--skip-bad-lines', '--encoding', 'heuristic')
    expect(human.code, human.err).toBe(EXIT.ok)
    expect(human.err).toContain(`${file}:${at}: skipped: `)
    const json = await cli('stats', file, '--skip-bad-lines', '--json', '--encoding', 'heuristic')
    expect(json.code, json.err).toBe(EXIT.ok)
    const out = JSON.parse(json.out) as { format: string; skipped: Array<{ line: number; reason: string }> }
    expect(out.format).toBe(format)
    expect(out.skipped).toEqual([{ line: at, reason: expect.any(String) }])
  })
})

describe('check tells a request body’s provider from its shape', () => {
  it('checks a body without --provider against the provider its shape shows', async () => {
    const body = write(
      'anthropic-body.json',
      JSON.stringify({
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} }] }, {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }],
        }],
      }),
    )
    const r = await cli('check', body, '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toMatchObject({ provider: 'anthropic', checked: 'request', violations: [], detected: expect.stringContaining('tool_use') })
  })

  it('says which provider the shape looks like when another is named', async () => {
    const body = write(
      'chat-tools.json',
      JSON.stringify({
        messages: [{ role: 'user', content: 'Hi' }, {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
        }, { role: 'tool', tool_call_id: 'c1', content: 'a.txt' }],
      }),
    )
    const r = await cli('check', body, '--provider', 'anthropic')
    expect(r.code).toBe(EXIT.usage)
    expect(r.err).toContain(
      'looks like a openai-chat request body (messages[1] has OpenAI tool calls or results), not anthropic; check it with --provider openai-chat',
    )
  })

  it('accepts a plain chat body for any provider whose shape it has', async () => {
    const body = write('plain.json', JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] }))
    const r = await cli('check', body, '--provider', 'anthropic', '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toMatchObject({ provider: 'anthropic', checked: 'request' })
  })

  it('asks for --provider for a history', async () => {
    const r = await cli('check', FIXTURES.opencode)
    expect(r.code).toBe(EXIT.usage)
    expect(r.err).toContain('is not a request body but a history (opencode): name the provider whose rules apply with --provider')
    const ok = await cli('check', FIXTURES.opencode, '--provider', 'gemini', '--json')
    expect(ok.code, ok.err).toBe(EXIT.ok)
  })
})
