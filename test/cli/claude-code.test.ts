import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import { fromJSONL } from '../../src/history/codec.ts'
import { repairToolPairs, validateToolPairs } from '../../src/history/pairs.ts'
import { forLLM } from '../../src/history/views.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { type Message } from '../../src/message/message.ts'
import { fromClaudeCode, readClaudeCode } from '../../src/sessions/claude-code.ts'

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-code')
const PARALLEL = join(DIR, '1e8d4c2f-6a3b-4f1e-9d7c-2b5a8e0f4c61.jsonl')
const REWIND = join(DIR, '4b7e2a90-1c5d-4e8f-a3b6-9d0c1e2f3a47.jsonl')
const COMPACTED = join(DIR, '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl')
const SUBAGENT = join(DIR, '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl')
const AGENT_FILE = join(DIR, '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47', 'subagents', 'agent-a3f9d21.jsonl')
const INLINE = join(DIR, '2d9b7f03-8e41-4c6a-9f25-b0a3c7e1d658.jsonl')
const SESSION = join(DIR, 'session.jsonl')
const MAIN_FILES = [SESSION, PARALLEL, REWIND, COMPACTED, SUBAGENT, INLINE]

const tmp = mkdtempSync(join(tmpdir(), 'chatfold-cc-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}
const decoded = (text: string): Message[] => {
  const r = fromJSONL(text)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return [...r.right]
}
/** The whole history chatfold reads from a file: its archive, then its messages (every branch). */
const everything = async (file: string, ...more: string[]): Promise<Message[]> => {
  const archive = join(tmp, `${Math.random().toString(36).slice(2)}.jsonl`)
  const r = await cli('convert', file, '--to', 'chatfold-jsonl', '--all-branches', '--archive', archive, ...more)
  expect(r.code, r.err).toBe(EXIT.ok)
  return [...decoded(readFileSync(archive, 'utf8')), ...decoded(r.out)]
}

// --- the facts of a session file, read with nothing but JSON.parse ---

// deno-lint-ignore no-explicit-any -- the sessions' JSON lines, read field by field
type Rec = Record<string, any>
const records = (file: string): Rec[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec)
const blocksOf = (
  r: Rec,
): Rec[] => (typeof r['message']?.content === 'string'
  ? [{ type: 'text', text: r['message'].content }]
  : Array.isArray(r['message']?.content)
  ? r['message'].content
  : [])
const joined = (c: unknown): string => (typeof c === 'string' ? c : (c as Rec[]).filter((b) => b['type'] === 'text').map((b) => b['text'] as string).join('\n'))

const factsOf = (rs: Rec[]) => {
  const calls = new Map<string, { name: string; input: unknown; sidechain: boolean }>()
  const results = new Map<string, { text: string; isError: boolean }>()
  const thinking: Array<{ text: string; signature: string }> = []
  const replies = new Map<string, { first: Rec; last: Rec }>()
  const typed: string[] = []
  const agents = new Set<string>()
  for (const r of rs) {
    if (r['type'] !== 'user' && r['type'] !== 'assistant') continue
    if (typeof r['agentId'] === 'string') agents.add(r['agentId'])
    for (const b of blocksOf(r)) {
      if (b['type'] === 'tool_use') calls.set(b['id'], { name: b['name'], input: b['input'], sidechain: r['isSidechain'] === true })
      if (b['type'] === 'tool_result') results.set(b['tool_use_id'], { text: joined(b['content']), isError: b['is_error'] === true })
      if (b['type'] === 'thinking') thinking.push({ text: b['thinking'], signature: b['signature'] })
      if (b['type'] === 'text' && r['type'] === 'user' && r['isCompactSummary'] !== true) typed.push(b['text'])
    }
    if (r['type'] === 'assistant') {
      const id = r['message'].id as string
      replies.set(id, { first: replies.get(id)?.first ?? r, last: r })
    }
  }
  return { calls, results, thinking, replies, typed, agents }
}

const partsOf = (ms: Message[]) => ms.flatMap((m) => m.parts.map((p) => ({ m, p })))

describe('every fact of each fixture is in chatfold JSONL', () => {
  it.each([...MAIN_FILES, AGENT_FILE].map((f) => [f.slice(DIR.length + 1), f] as const))('%s', async (_, file) => {
    const own = file === SUBAGENT ? [...records(file), ...records(AGENT_FILE)] : records(file)
    // the first fixture's one sidechain record belongs to no Task call: skipped, and said so
    const rs = file === SESSION ? own.filter((r) => r['isSidechain'] !== true) : own
    if (file === SESSION) expect(JSON.parse((await cli('stats', file, '--json', '--encoding', 'heuristic')).out).notes[0]).toContain('1 sidechain')
    const f = factsOf(rs)
    const ms = await everything(file)
    const parts = partsOf(ms)
    for (const [id, c] of f.calls) {
      const found = parts.find(({ p }) => p.type === 'tool_call' && p.id === id)
      expect(found, `call ${id}`).toBeDefined()
      if (found?.p.type !== 'tool_call') continue
      expect(found.p.name).toBe(c.name)
      expect(JSON.parse(found.p.arguments)).toEqual(c.input)
      expect(found.m.kind).toBe(c.sidechain && file !== AGENT_FILE ? 'display' : found.m.metadata?.['branch'] === undefined ? 'normal' : 'display')
    }
    for (const [id, r] of f.results) {
      const found = parts.filter(({ p }) => p.type === 'tool_result' && p.toolCallId === id)
      expect(found, `result ${id}`).toHaveLength(1)
      expect(found[0]?.p).toMatchObject({ content: r.text, isError: r.isError })
    }
    for (const t of f.thinking) expect(parts.some(({ p }) => p.type === 'reasoning' && p.text === t.text && p.signature === t.signature)).toBe(true)
    for (const text of f.typed) expect(parts.some(({ m, p }) => m.role === 'user' && p.type === 'text' && p.text === text), text).toBe(true)
    for (const [, { first, last }] of f.replies) {
      const m = ms.find((x) => x.id === first['uuid'])
      const u = last['message'].usage as Rec | undefined
      const usage = u === undefined ? undefined : {
        input: u['input_tokens'],
        output: u['output_tokens'],
        ...(u['cache_read_input_tokens'] === undefined ? {} : { cacheRead: u['cache_read_input_tokens'] }),
        ...(u['cache_creation_input_tokens'] === undefined ? {} : { cacheWrite: u['cache_creation_input_tokens'] }),
        ...((u['cache_creation'] as Rec | undefined)?.['ephemeral_1h_input_tokens']
          ? { cacheWrite1h: (u['cache_creation'] as Rec)['ephemeral_1h_input_tokens'] }
          : {}),
      }
      expect(m, `reply ${first['message'].id}`).toMatchObject({
        role: 'assistant',
        model: first['message'].model,
        provider: 'anthropic',
        createdAt: first['timestamp'],
      })
      expect(m?.metadata?.['usage']).toEqual(usage)
    }
    if (file !== AGENT_FILE) {
      for (const a of f.agents) expect(ms.some((m) => (m.metadata?.['subagent'] as { agentId?: string } | undefined)?.agentId === a)).toBe(true)
    }
  })
})

describe('each fixture converts to every provider without repair', () => {
  const providers = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const
  it.each(MAIN_FILES.flatMap((f) => providers.map((p) => [`${f.slice(DIR.length + 1, DIR.length + 9)} to ${p}`, f, p] as const)))(
    '%s',
    async (_, file, provider) => {
      const r = await cli('convert', file, '--to', provider, '--json')
      expect(r.code, r.err).toBe(EXIT.ok)
      expect(checkRequest(provider)(JSON.parse(r.out))).toEqual([])
      const report = JSON.parse(r.err.trim().split('\n').pop() as string) as { repair?: unknown }
      expect(report.repair).toBeUndefined()
    },
  )
})

describe('a parallel result recorded after the next turn', () => {
  it('follows its call, with nothing repaired or invented', async () => {
    const r = await cli('convert', PARALLEL, '--to', 'chatfold-jsonl')
    const ms = decoded(r.out)
    expect(ms.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant'])
    expect(ms[3]?.parts[0]).toMatchObject({ type: 'tool_result', toolCallId: 'toolu_01WriteJsonExporterTest', name: 'Write', isError: false })
    expect(ms.some((m) => m.metadata?.['repaired'] === true)).toBe(false)
    expect(validateToolPairs(ms).valid).toBe(true)
    expect(repairToolPairs(ms).messages).toBe(ms)
    const stats = await cli('stats', PARALLEL, '--json', '--encoding', 'heuristic')
    expect(stats.code, stats.out).toBe(EXIT.ok)
    expect(JSON.parse(stats.out)).toMatchObject({ toolPairs: { valid: true, issues: [] }, toolCalls: 3 })
  })

  it('the reply split over records of which one hangs off the chain is one message, its usage from its last record', async () => {
    const ms = decoded((await cli('convert', PARALLEL, '--to', 'chatfold-jsonl')).out)
    expect(ms[1]?.parts.map((p) => p.type)).toEqual(['reasoning', 'text', 'tool_call', 'tool_call', 'finish'])
    expect(ms[1]?.metadata?.['usage']).toEqual({ input: 3, output: 412, cacheRead: 14210, cacheWrite: 6120, cacheWrite1h: 6120 })
  })
})

describe('branches', () => {
  it('reads the active branch, and counts the abandoned one', async () => {
    const r = await cli('convert', REWIND, '--to', 'chatfold-jsonl')
    const texts = decoded(r.out).flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])))
    expect(texts).toContain('Also add a CHANGELOG line for the rename.')
    expect(texts).not.toContain('Also update the README example.')
    expect(r.err).toContain('1 abandoned branch left out (--all-branches reads them)')
  })

  it('reads an abandoned branch after the active one as display messages with metadata.branch', async () => {
    const ms = decoded((await cli('convert', REWIND, '--to', 'chatfold-jsonl', '--all-branches')).out)
    const branch = ms.filter((m) => m.metadata?.['branch'] !== undefined)
    expect(branch.map((m) => `${m.role}/${m.kind}`)).toEqual(['user/display', 'assistant/display', 'tool/display', 'assistant/display'])
    expect(ms.slice(-4)).toEqual(branch)
    const renamed = ms.find((m) => m.parts.some((p) => p.type === 'text' && p.text.startsWith('Renamed')))
    expect(branch[0]?.metadata?.['branch']).toEqual({ index: 1, leaf: branch[3]?.id, forkedFrom: renamed?.id })
    expect(forLLM(ms).some((m) => m.metadata?.['branch'] !== undefined)).toBe(false)
  })
})

describe('a compaction', () => {
  it('starts the history at its summary and archives what it replaced', async () => {
    const archive = join(tmp, 'archive.jsonl')
    const r = await cli('convert', COMPACTED, '--to', 'chatfold-jsonl', '--archive', archive)
    const ms = decoded(r.out)
    const old = decoded(readFileSync(archive, 'utf8'))
    expect(old).toHaveLength(9)
    expect(isCompactionSummary(ms[0] as Message)).toBe(true)
    expect(ms[0]?.metadata?.['compaction']).toEqual({ summarised: 9, through: old[8]?.id })
    expect(ms.flatMap((m) => m.parts).some((p) => p.type === 'text' && p.text.includes('src/http.ts (3 attempts)'))).toBe(false)
    const stats = await cli('stats', COMPACTED, '--json', '--encoding', 'heuristic')
    expect(JSON.parse(stats.out)).toMatchObject({ archived: 9 })
    expect(JSON.parse(stats.out).notes).toContain('compacted (manual, 48,211 tokens before)')
  })

  it('compact --archive keeps the archive the file had before the new one', async () => {
    const archive = join(tmp, 'archive-compact.jsonl')
    const r = await cli('compact', COMPACTED, '--keep-recent-tokens', '50', '--encoding', 'heuristic', '--archive', archive)
    expect(r.code, r.err).toBe(EXIT.ok)
    const old = decoded(readFileSync(archive, 'utf8'))
    expect(old.slice(0, 9).map((m) => m.id)).toEqual(decoded(readFileSync(join(tmp, 'archive.jsonl'), 'utf8')).map((m) => m.id))
    expect(old.length).toBeGreaterThan(9)
  })
})

describe('compactions in records', () => {
  const u = (uuid: string, parentUuid: string | null, content: string, extra: object = {}) => ({
    type: 'user',
    uuid,
    parentUuid,
    message: { role: 'user', content },
    ...extra,
  })
  const a = (uuid: string, parentUuid: string, text: string) => ({
    type: 'assistant',
    uuid,
    parentUuid,
    message: { id: `msg_${uuid}`, role: 'assistant', model: 'm', content: [{ type: 'text', text }] },
  })
  const boundary = (uuid: string, logicalParentUuid: string) => ({
    type: 'system',
    subtype: 'compact_boundary',
    uuid,
    parentUuid: null,
    logicalParentUuid,
    compactMetadata: { trigger: 'auto', preTokens: 1000 },
  })

  it('archive everything before the last summary, an earlier summary among it', () => {
    const rs = [
      u('u1', null, 'one'),
      a('a1', 'u1', 'two'),
      boundary('b1', 'a1'),
      u('s1', 'b1', 'first summary', { isCompactSummary: true }),
      u('u2', 's1', 'three'),
      a('a2', 'u2', 'four'),
      boundary('b2', 'a2'),
      u('s2', 'b2', 'second summary', { isCompactSummary: true }),
      u('u3', 's2', 'five'),
      a('a3', 'u3', 'six'),
    ]
    const r = readClaudeCode()(rs)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right.archive.map((m) => m.id)).toEqual(['u1', 'a1', 's1', 'u2', 'a2'])
    expect(r.right.messages.map((m) => m.id)).toEqual(['s2', 'u3', 'a3'])
    expect(r.right.messages[0]?.metadata?.['compaction']).toEqual({ summarised: 5, through: 'a2' })
    expect(r.right.compactions).toEqual([{ trigger: 'auto', preTokens: 1000 }, { trigger: 'auto', preTokens: 1000 }])
  })

  it('go on through the last message before the boundary when its logical parent is not in the file', () => {
    const rs = [
      u('u1', null, 'one'),
      a('a1', 'u1', 'two'),
      boundary('b1', 'not-in-this-file'),
      u('s1', 'b1', 'summary', { isCompactSummary: true }),
      u('u2', 's1', 'three'),
    ]
    const r = readClaudeCode()(rs)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right.archive.map((m) => m.id)).toEqual(['u1', 'a1'])
    expect(r.right.messages.map((m) => m.id)).toEqual(['s1', 'u2'])
  })
})

describe('a prompt queued while a reply ran', () => {
  it('reads as the user message it is, after the results of the turn it arrived in', () => {
    const rs = [
      { type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'build it' } },
      {
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        message: { id: 'msg_1', role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'make' } }] },
      },
      {
        type: 'attachment',
        uuid: 'q1',
        parentUuid: 'a1',
        attachment: { type: 'queued_command', prompt: [{ type: 'text', text: 'also run the tests' }], commandMode: 'prompt' },
      },
      { type: 'user', uuid: 'r1', parentUuid: 'q1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } },
      { type: 'attachment', uuid: 'x1', parentUuid: 'r1', attachment: { type: 'skill_listing', content: '…' } },
      {
        type: 'assistant',
        uuid: 'a2',
        parentUuid: 'x1',
        message: { id: 'msg_2', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'Built; running the tests next.' }] },
      },
    ]
    const r = readClaudeCode()(rs)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right.messages.map((m) => `${m.id}/${m.role}/${m.kind}`)).toEqual([
      'u1/user/normal',
      'a1/assistant/normal',
      'r1/tool/normal',
      'q1/user/normal',
      'x1/user/synthetic',
      'a2/assistant/normal',
    ])
    expect(r.right.skipped).toEqual({})
  })
})

describe('injected text', () => {
  it('is synthetic when a reply followed, display when none did, with its origin', async () => {
    const ms = await everything(COMPACTED)
    const origins = ms.filter((m) => m.metadata?.['origin'] !== undefined).map((m) => `${m.kind}/${String(m.metadata?.['origin'])}`)
    expect(origins).toEqual([
      'synthetic/system-reminder',
      'synthetic/task-notification',
      'synthetic/meta',
      'synthetic/slash-command',
      'synthetic/local-command',
      'synthetic/interrupt',
      'display/slash-command',
      'display/local-command',
    ])
    expect(ms.filter((m) => m.role === 'user' && m.kind === 'normal' && !isCompactionSummary(m))).toHaveLength(4)
  })

  it("an API error Claude Code wrote in the model's place is display-only, with its text as the error", async () => {
    const ms = await everything(COMPACTED)
    const standIns = ms.filter((m) => m.model === '<synthetic>')
    expect(standIns).toHaveLength(1)
    expect(standIns[0]).toMatchObject({ role: 'assistant', kind: 'display', error: expect.stringMatching(/^API Error: 529/) })
    expect(forLLM(ms).some((m) => m.model === '<synthetic>')).toBe(false)
  })

  it('compact never calls a task notification the latest request', async () => {
    const r = await cli('compact', COMPACTED, '--keep-recent-tokens', '50', '--encoding', 'heuristic')
    const summary = decoded(r.out).find((m) => isCompactionSummary(m) && m.id.startsWith('compaction-'))
    const text = summary?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('') ?? ''
    expect(text).toContain('Latest request: Use an options object instead')
    for (const injected of ['<command-name>', '<local-command-stdout>', '[Request interrupted', 'task-notification', 'API Error'])
      expect(text).not.toContain(injected)
  })
})

describe('sub-agents', () => {
  it('follow the tool message answering their Task call, display-only, with metadata.subagent', async () => {
    const r = await cli('convert', SUBAGENT, '--to', 'chatfold-jsonl')
    expect(r.err).toContain('read 1 sub-agent transcript from')
    const ms = decoded(r.out)
    const at = ms.findIndex((m) => m.role === 'tool' && m.parts.some((p) => p.type === 'tool_result' && p.toolCallId === 'toolu_01TaskDates'))
    const run = ms.slice(at + 1, -1)
    expect(run.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'assistant'])
    for (const m of run) expect(m).toMatchObject({ kind: 'display', metadata: { subagent: { toolCallId: 'toolu_01TaskDates', agentId: 'a3f9d21' } } })
    expect(run[1]?.model).toBe('claude-haiku-4-5-20251001')
    expect(ms[ms.length - 1]).toMatchObject({ role: 'assistant', kind: 'normal' })
    // stats checks the pairing of what is sent: the run between a turn's results takes no part
    const stats = await cli('stats', SUBAGENT, '--json', '--encoding', 'heuristic')
    expect(stats.code).toBe(EXIT.ok)
    expect(JSON.parse(stats.out)).toMatchObject({ toolPairs: { valid: true }, byKind: { normal: 4, display: 7 } })
  })

  it('without their transcript, are read from the progress records mirroring them, and said so', async () => {
    const alone = join(tmp, 'main-alone.jsonl')
    writeFileSync(alone, readFileSync(SUBAGENT))
    const r = await cli('convert', alone, '--to', 'chatfold-jsonl')
    expect(r.err).toContain('sub-agent a3f9d21 read from the progress records mirroring it')
    const run = decoded(r.out).filter((m) => m.metadata?.['subagent'] !== undefined)
    expect(run.map((m) => `${m.role}/${m.kind}`)).toEqual(['user/display'])
    expect(run[0]?.metadata?.['subagent']).toEqual({ toolCallId: 'toolu_01TaskDates', agentId: 'a3f9d21' })
  })

  it('are found beside the session in the earlier layout (agent files naming the session)', async () => {
    const dir = mkdtempSync(join(tmp, 'project-'))
    writeFileSync(join(dir, '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl'), readFileSync(SUBAGENT))
    writeFileSync(join(dir, 'agent-a3f9d21.jsonl'), readFileSync(AGENT_FILE))
    // another session's agent file in the same folder is not read
    writeFileSync(
      join(dir, 'agent-b0000ff.jsonl'),
      readFileSync(AGENT_FILE, 'utf8').replaceAll('7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47', '00000000-0000-4000-8000-000000000000'),
    )
    const r = await cli('convert', join(dir, '7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47.jsonl'), '--to', 'chatfold-jsonl')
    expect(r.err).toContain('read 1 sub-agent transcript from')
    expect(decoded(r.out).filter((m) => m.metadata?.['subagent'] !== undefined)).toHaveLength(7)
  })

  it('of parallel Task calls each follow their own result, and stats judges the pairing of what is sent', async () => {
    const base = { isSidechain: false, userType: 'external', cwd: '/w', sessionId: 's', version: '2.1.39', gitBranch: 'main' }
    const task = (id: string, prompt: string) => ({ type: 'tool_use', id, name: 'Task', input: { subagent_type: 'Explore', description: prompt, prompt } })
    const side = (agentId: string, uuid: string, parentUuid: string | null, type: string, content: unknown) => ({
      ...base,
      isSidechain: true,
      agentId,
      parentUuid,
      type,
      uuid,
      message: { role: type, content, ...(type === 'assistant' ? { id: `msg_${uuid}`, model: 'claude-haiku-4-5' } : {}) },
    })
    const rs = [
      { ...base, parentUuid: null, type: 'user', uuid: 'u1', message: { role: 'user', content: 'Look at a and b.' } },
      {
        ...base,
        parentUuid: 'u1',
        type: 'assistant',
        uuid: 'a1',
        message: { id: 'msg_A', role: 'assistant', model: 'claude-opus-4-6', content: [task('t1', 'look at a')] },
      },
      {
        ...base,
        parentUuid: 'a1',
        type: 'assistant',
        uuid: 'a2',
        message: { id: 'msg_A', role: 'assistant', model: 'claude-opus-4-6', content: [task('t2', 'look at b')], stop_reason: 'tool_use' },
      },
      {
        ...base,
        parentUuid: 'a1',
        type: 'user',
        uuid: 'r1',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a is fine' }] },
        toolUseResult: { status: 'completed', agentId: 'x1' },
      },
      {
        ...base,
        parentUuid: 'a2',
        type: 'user',
        uuid: 'r2',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'b is fine' }] },
        toolUseResult: { status: 'completed', agentId: 'x2' },
      },
      {
        ...base,
        parentUuid: 'r2',
        type: 'assistant',
        uuid: 'a3',
        message: { id: 'msg_B', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'Both fine.' }], stop_reason: 'end_turn' },
      },
      side('x1', 's1', null, 'user', 'look at a'),
      side('x1', 's2', 's1', 'assistant', [{ type: 'text', text: 'a is fine' }]),
      side('x2', 's3', null, 'user', 'look at b'),
      side('x2', 's4', 's3', 'assistant', [{ type: 'text', text: 'b is fine' }]),
    ]
    const r = readClaudeCode()(rs)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const ms = [...r.right.messages]
    expect(ms.map((m) => m.id)).toEqual(['u1', 'a1', 'r1', 's1', 's2', 'r2', 's3', 's4', 'a3'])
    expect(validateToolPairs(ms).valid).toBe(false)
    expect(validateToolPairs(forLLM(ms)).valid).toBe(true)
    const file = join(tmp, 'parallel-tasks.jsonl')
    writeFileSync(file, rs.map((x) => JSON.stringify(x)).join('\n'))
    const stats = await cli('stats', file, '--json', '--encoding', 'heuristic')
    expect(stats.code, stats.out).toBe(EXIT.ok)
    expect(JSON.parse(stats.out)).toMatchObject({ toolPairs: { valid: true } })
  })

  it('are left out with --subagents omit', async () => {
    const r = await cli('convert', SUBAGENT, '--to', 'chatfold-jsonl', '--subagents', 'omit')
    expect(decoded(r.out).some((m) => m.metadata?.['subagent'] !== undefined)).toBe(false)
    expect(decoded(r.out)).toHaveLength(4)
  })

  it('inline in an older file are linked by their prompt', async () => {
    const ms = decoded((await cli('convert', INLINE, '--to', 'chatfold-jsonl')).out)
    expect(ms.map((m) => `${m.role}/${m.kind}`)).toEqual([
      'user/normal',
      'assistant/normal',
      'tool/normal',
      'user/display',
      'assistant/display',
      'tool/display',
      'assistant/display',
      'assistant/normal',
    ])
    expect(ms[3]?.metadata).toEqual({ subagent: { toolCallId: 'toolu_01TaskFixtures' } })
  })

  it('a sub-agent file on its own reads as its conversation', async () => {
    const r = await cli('stats', AGENT_FILE, '--json', '--encoding', 'heuristic')
    expect(r.code, r.out).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toMatchObject({ messages: 7, byKind: { normal: 7 }, toolCalls: 3 })
  })
})

describe('readClaudeCode', () => {
  it('reads records already parsed, as fromClaudeCode reads the text', () => {
    const text = readFileSync(PARALLEL, 'utf8')
    const parsed = text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown)
    expect(readClaudeCode()(parsed)).toEqual(fromClaudeCode()(text))
  })

  it('names the record that is not a record, by index or by line', () => {
    const r = readClaudeCode()([{ type: 'user', uuid: 'u', message: { role: 'user', content: 'hi' } }, { uuid: 'x' }])
    expect(E.isLeft(r) && r.left[0]?.path).toBe('records[1].type')
    const l = readClaudeCode({ lineNumbers: [3, 9] })([{ type: 'user', uuid: 'u', message: { role: 'user', content: 'hi' } }, { type: 'assistant', uuid: 'a' }])
    expect(E.isLeft(l) && l.left[0]?.path).toBe('line 9.message')
  })
})
