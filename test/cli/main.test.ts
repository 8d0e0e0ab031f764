import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'
import { sampleSession } from '../../sample/session.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const FIXTURE = join(root, 'test', 'fixtures', 'claude-code', 'session.jsonl')
let dir = ''

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

const history = sampleSession({ messages: 80, seed: 3, maxResult: 3_000 })
const PROVIDERS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ai-sdk'] as const
const files: Record<string, string> = {}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'))
  files['chatfold-jsonl'] = join(dir, 'history.jsonl')
  writeFileSync(files['chatfold-jsonl'], toJSONL(history))
  files['claude-code'] = FIXTURE
  for (const to of [...PROVIDERS, 'chatfold-json', 'ui-messages']) {
    files[to] = join(dir, `${to}.json`)
    const r = await cli('convert', files['chatfold-jsonl'], '--to', to, '--repair', '-o', files[to] as string)
    expect(r.code, r.err).toBe(EXIT.ok)
  }
})

afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

const decoded = (text: string): ReadonlyArray<Message> => {
  const r = fromJSONL(text)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

describe('each command on each input format', () => {
  const formats = ['chatfold-jsonl', 'chatfold-json', 'claude-code', 'ui-messages', ...PROVIDERS]

  it.each(formats)('stats detects %s and counts its messages', async (format) => {
    const r = await cli('stats', files[format] as string, '--json', '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    const s = JSON.parse(r.out) as {
      format: string
      messages: number
      tokens: { total: number; content: number; thinking: number; tools: number }
      byRole: Record<string, number>
    }
    expect(s.format).toBe(format)
    expect(s.messages).toBeGreaterThan(5)
    expect(s.tokens.total).toBeGreaterThan(s.tokens.content + s.tokens.tools)
    expect(s.byRole['assistant']).toBeGreaterThan(0)
    // forcing the same format gives the same figures (ids the adapters make up aside)
    const forced = await cli('stats', files[format] as string, '--json', '--encoding', 'heuristic', '--from', format)
    const noIds = (x: { largest: Array<{ id?: string }> }) => ({ ...x, largest: x.largest.map(({ id: _, ...rest }) => rest) })
    expect(noIds(JSON.parse(forced.out) as typeof s & { largest: Array<{ id?: string }> })).toEqual(noIds(s as typeof s & { largest: Array<{ id?: string }> }))
  })

  it.each(formats)('prune, compact, render and convert read %s', async (format) => {
    const file = files[format] as string
    const pruned = await cli('prune', file, '--protect-tokens', '200', '--minimum-savings', '0', '--encoding', 'heuristic')
    expect(pruned.code, pruned.err).toBe(EXIT.ok)
    expect(pruned.err).toMatch(/^pruned \d+ results/m)
    const before = await cli('convert', file, '--to', 'chatfold-jsonl')
    expect(decoded(pruned.out).length).toBe(decoded(before.out).length)

    const compacted = await cli('compact', file, '--keep-recent-tokens', '100', '--encoding', 'heuristic', '--json')
    expect(compacted.code, compacted.err).toBe(EXIT.ok)
    const report = JSON.parse(compacted.err) as { compacted: boolean; summarised: number }
    expect(report.compacted).toBe(true)
    const after = decoded(compacted.out)
    expect(after.filter(isCompactionSummary)).toHaveLength(1)
    expect(after.length).toBeLessThan(decoded(before.out).length)

    for (const f of ['markdown', 'text', 'transcript']) {
      const r = await cli('render', file, '--format', f)
      expect(r.code, r.err).toBe(EXIT.ok)
      expect(r.out).toMatch(f === 'markdown' ? /^## (System|User)/m : /^\[(System|User)\]:/m)
    }

    const converted = await cli('convert', file, '--to', 'anthropic', '--repair')
    expect(converted.code, converted.err).toBe(EXIT.ok)
    expect((JSON.parse(converted.out) as { messages: unknown[] }).messages.length).toBeGreaterThan(0)
  })

  it('writes with -o, and the file reads back as the same history', async () => {
    const out = join(dir, 'copy.jsonl')
    const r = await cli('convert', files['chatfold-jsonl'] as string, '--to', 'chatfold-jsonl', '-o', out)
    expect(r).toEqual({ code: EXIT.ok, out: '', err: '' })
    expect(decoded(readFileSync(out, 'utf8'))).toEqual(history)
  })
})

describe('Claude Code session files', () => {
  it('merges one reply written over several records, keeps signatures, and turns results into tool messages', async () => {
    const r = await cli('convert', FIXTURE, '--to', 'chatfold-jsonl')
    expect(r.code).toBe(EXIT.ok)
    expect(r.err).toContain('skipped records not part of the conversation: 1 summary, 1 file-history-snapshot, 1 sidechain, 1 system')
    const ms = decoded(r.out)
    expect(ms.map((m) => `${m.role}/${m.kind}`)).toEqual([
      'user/normal',
      'assistant/normal',
      'tool/normal',
      'assistant/normal',
      'tool/normal',
      'assistant/normal',
      'tool/normal',
      'user/synthetic',
      'assistant/normal',
    ])
    const first = ms[1] as Message
    expect(first.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool_call', 'finish'])
    expect(first.parts[0]).toMatchObject({ type: 'reasoning', signature: 'EqQBCkYIBxgCKkB0aGlua2luZy1zaWduYXR1cmU=' })
    expect(first).toMatchObject({ id: 'a1', model: 'claude-sonnet-4-5', provider: 'anthropic', createdAt: '2026-03-02T10:00:03.000Z' })
    expect(ms[4]?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'toolu_02Bash', isError: true })
  })

  it('is detected when the file opens with records that are not messages', async () => {
    const lines = readFileSync(FIXTURE, 'utf8').split('\n')
    const file = join(dir, 'snapshot-first.jsonl')
    writeFileSync(file, [lines[1], lines[1], ...lines.slice(2)].join('\n'))
    expect(JSON.parse(lines[1] as string)).not.toHaveProperty('sessionId')
    const r = await cli('stats', file, '--json', '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toMatchObject({ format: 'claude-code', messages: 9 })
  })

  it('names the file and line of a record that is not JSON', async () => {
    const bad = join(dir, 'bad-session.jsonl')
    writeFileSync(bad, `${readFileSync(FIXTURE, 'utf8').split('\n').slice(0, 3).join('\n')}\n{"type":"user",\n`)
    const r = await cli('stats', bad)
    expect(r.code).toBe(EXIT.input)
    expect(r.err).toContain(`${bad}:4: `)
  })
})

describe('exit codes and errors', () => {
  it('3 for a file that cannot be read', async () => {
    const r = await cli('stats', join(dir, 'missing.jsonl'))
    expect(r.code).toBe(EXIT.io)
    expect(r.err).toBe(`chatfold: cannot read ${join(dir, 'missing.jsonl')}: no such file\n`)
  })

  it('4 for a history line that does not decode, with the file and line', async () => {
    const bad = join(dir, 'bad.jsonl')
    writeFileSync(bad, `${toJSONL([textMessage('user', 'hi', { id: 'a' })])}{"id":"b","role":"bot","parts":[]}\n`)
    const r = await cli('render', bad)
    expect(r.code).toBe(EXIT.input)
    expect(r.err).toContain(`${bad}:2: role: expected`)
  })

  it('4 for text that is neither JSON nor JSON lines, and for JSON in no known format', async () => {
    const junk = join(dir, 'junk.txt')
    writeFileSync(junk, 'hello\nworld\n')
    expect((await cli('stats', junk)).err).toContain(`${junk}:1: not JSON nor JSON lines`)
    const other = join(dir, 'other.json')
    writeFileSync(other, '{"hello":"world"}')
    const r = await cli('stats', other)
    expect(r.code).toBe(EXIT.input)
    expect(r.err).toContain('cannot tell the format; name it with --from')
  })

  it('2 for bad usage: unknown command, unknown format, bad number', async () => {
    expect((await cli('frobnicate')).code).toBe(EXIT.usage)
    expect((await cli('convert', FIXTURE, '--to', 'cobol')).code).toBe(EXIT.usage)
    expect((await cli('prune', FIXTURE, '--protect-tokens', 'lots')).code).toBe(EXIT.usage)
    expect((await cli('convert', FIXTURE)).err).toContain("required option '--to <format>' not specified")
  })

  it('1 when the history has problems: tool pairs in stats, a refused conversion', async () => {
    const broken = join(dir, 'broken.jsonl')
    writeFileSync(
      broken,
      toJSONL([
        textMessage('user', 'list files', { id: 'u' }),
        makeMessage({ id: 'a', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', arguments: '{}' })] }),
        makeMessage({ id: 't', role: 'tool', parts: [toolResult({ toolCallId: 'zz', content: 'README.md' })] }),
      ]),
    )
    const s = await cli('stats', broken, '--encoding', 'heuristic')
    expect(s.code).toBe(EXIT.problems)
    expect(s.out).toContain('tool pairs: 2 problems')
    expect(s.out).toContain('call c1 (ls) has no result')
    const c = await cli('convert', broken, '--to', 'openai-chat')
    expect(c.code).toBe(EXIT.problems)
    expect(c.err).toContain('--repair fixes them')
    expect((await cli('convert', broken, '--to', 'openai-chat', '--repair')).code).toBe(EXIT.ok)
  })

  it('0 for --help, which lists every command', async () => {
    const r = await cli('--help')
    expect(r.code).toBe(EXIT.ok)
    for (const c of ['stats', 'prune', 'compact', 'render', 'convert']) expect(r.out).toContain(`${c} [options] <file>`)
  })
})

describe('the chatfold bin, spawned', () => {
  it('runs from a clone through `npm run chatfold --` and the bin file, with exit codes', () => {
    const viaNpm = spawnSync('npm', ['run', '-s', 'chatfold', '--', 'stats', FIXTURE, '--json', '--encoding', 'heuristic'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(viaNpm.status, viaNpm.stderr).toBe(0)
    expect((JSON.parse(viaNpm.stdout) as { format: string }).format).toBe('claude-code')
    const missing = spawnSync(process.execPath, [join(root, 'bin', 'chatfold.mjs'), 'render', join(dir, 'nope.jsonl')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(missing.status).toBe(EXIT.io)
    expect(missing.stderr).toContain('no such file')
    // npx in the repository runs the project's own bin, without asking the registry
    const npx = spawnSync('npx', ['--no-install', 'chatfold', '--version'], { cwd: root, encoding: 'utf8', timeout: 60_000 })
    expect(npx.status, npx.stderr).toBe(0)
    expect(npx.stdout.trim()).toBe((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version)
  }, 120_000)

  it('shows a progress bar on stderr with --progress, and none without it when stderr is not a terminal', async () => {
    const file = files['chatfold-jsonl'] as string
    const quiet = await cli('stats', file, '--encoding', 'heuristic')
    expect(quiet.err).toBe('')
    const shown = await cli('stats', file, '--encoding', 'heuristic', '--progress')
    expect(shown.err).toMatch(/^count +\[#{30}\] 100%$/m)
    const compacting = await cli('compact', file, '--encoding', 'heuristic', '--keep-recent-tokens', '100', '--progress')
    expect(compacting.err).toMatch(/^compact +\[[#.]{30}\] +\d+% summarize$/m)
    expect(compacting.err).toMatch(/100% done$/m)
  })
})

describe('check', () => {
  it.each(PROVIDERS)('a request body that chatfold built for %s follows every rule (exit 0)', async (provider) => {
    const r = await cli('check', files[provider] as string, '--provider', provider, '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toEqual({ file: files[provider], provider, checked: 'request', violations: [] })
  })

  it('names each violation of a hand-written request by path, and exits 1', async () => {
    const file = join(dir, 'bad-anthropic.json')
    writeFileSync(file, JSON.stringify({ messages: [{ role: 'user', content: ' ' }, { role: 'assistant', content: [{ type: 'text', text: 'Sure. ' }] }] }))
    const r = await cli('check', file, '--provider', 'anthropic', '--json')
    expect(r.code).toBe(EXIT.problems)
    const { violations } = JSON.parse(r.out) as { violations: Array<{ path: string; rule: string }> }
    expect(violations.map((v) => v.rule)).toEqual(expect.arrayContaining(['anthropic/text-not-blank', 'anthropic/prefill-no-trailing-whitespace']))
    expect(violations.find((v) => v.rule === 'anthropic/text-not-blank')?.path).toBe('messages[0].content')
    const human = await cli('check', file, '--provider', 'anthropic')
    expect(human.out).toContain(`${file}: messages[0].content:`)
    expect(human.err).toMatch(/violations? of anthropic's request rules/)
  })

  it('checks a stored history by what the adapter would have to fix: a note, exit 0', async () => {
    const file = join(dir, 'blank.jsonl')
    writeFileSync(file, toJSONL([textMessage('user', 'Hi'), textMessage('assistant', '\n'), textMessage('user', 'Still there?')]))
    const r = await cli('check', file, '--provider', 'anthropic', '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const out = JSON.parse(r.out) as { checked: string; violations: Array<{ rule: string }>; notes: Array<{ rule: string }> }
    expect(out.checked).toBe('history')
    expect(out.violations).toEqual([])
    expect(out.notes.map((v) => v.rule)).toContain('anthropic/text-not-blank')
    const fine = await cli('check', files['chatfold-jsonl'] as string, '--provider', 'openai-chat', '--json')
    expect(JSON.parse(fine.out)).toMatchObject({ checked: 'history' })
  })
})
