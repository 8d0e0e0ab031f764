import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { fromJSONL } from '../../src/history/codec.ts'
import type { Message } from '../../src/message/message.ts'
import { fromClaudeCode } from '../../src/sessions/claude-code.ts'

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-code')
const REWIND = join(DIR, '4b7e2a90-1c5d-4e8f-a3b6-9d0c1e2f3a47.jsonl')
const COMPACTED = join(DIR, '9a3f6e21-7b4c-4d8a-b2e5-0c1d9f8e7a36.jsonl')
const SESSION = join(DIR, 'session.jsonl')
const ATTACHMENTS = join(DIR, '3c8d5a17-2e94-4b6f-8a01-5d7e9c3b2f68.jsonl')

const tmp = mkdtempSync(join(tmpdir(), 'chatfold-ccr-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}
const ids = async (file: string, ...more: string[]): Promise<string[]> => {
  const r = await cli('convert', file, '--to', 'chatfold-jsonl', ...more)
  expect(r.code, r.err).toBe(EXIT.ok)
  const ms = fromJSONL(r.out)
  if (E.isLeft(ms)) throw new Error(JSON.stringify(ms.left))
  return ms.right.map((m) => m.id)
}
const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '')
const write = (name: string, ls: ReadonlyArray<string>): string => {
  const f = join(tmp, name)
  writeFileSync(f, `${ls.join('\n')}\n`)
  return f
}
const read = (text: string) => {
  const r = fromClaudeCode()(text)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

describe('--skip-bad-lines on a Claude Code session', () => {
  // a torn write: the line is cut in the middle of its JSON
  const torn = (file: string, n: number): { file: string; uuid: string } => {
    const ls = lines(file)
    const uuid = String((JSON.parse(ls[n - 1] as string) as { uuid: string }).uuid)
    ls[n - 1] = (ls[n - 1] as string).slice(0, 90)
    return { file: write(`torn-${n}-${file.split('/').pop() as string}`, ls), uuid }
  }

  it.each([
    [REWIND, 4],
    [COMPACTED, 6],
    [SESSION, 7],
  ])('keeps every message around one bad line in the middle (%s, line %i)', async (file, n) => {
    const intact = await ids(file)
    const t = torn(file, n)
    const r = await cli('convert', t.file, '--to', 'chatfold-jsonl', '--skip-bad-lines')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.err).toContain(`:${n}: skipped`)
    expect(r.err).toContain('parent is not in the file')
    expect(await ids(t.file, '--skip-bad-lines')).toEqual(intact.filter((id) => !id.startsWith(t.uuid)))
  })
})

describe('records without parent links', () => {
  const strip = (file: string, how: 'absent' | 'null', dropUuid = false): string =>
    write(
      `unlinked-${how}-${dropUuid}-${file.split('/').pop() as string}`,
      lines(file).map((l) => {
        const r = JSON.parse(l) as Record<string, unknown>
        if (how === 'absent') delete r['parentUuid']
        else if ('parentUuid' in r) r['parentUuid'] = null
        if (dropUuid) delete r['uuid']
        return JSON.stringify(r)
      }),
    )

  it('form one linear conversation, with or without the field', async () => {
    const intact = await ids(REWIND, '--all-branches')
    // read linearly, every message of every branch is kept, in file order (the abandoned branch where it stands)
    const order = lines(REWIND).flatMap((l) => (JSON.parse(l) as { uuid?: string }).uuid ?? [])
    const inFileOrder = [...intact].sort((a, b) => order.indexOf(a) - order.indexOf(b))
    for (const how of ['absent', 'null'] as const) expect(await ids(strip(REWIND, how))).toEqual(inFileOrder)
  })

  it('without uuids either, every message is kept in file order', () => {
    const ms = read(readFileSync(strip(SESSION, 'absent', true), 'utf8')).messages
    const texts = lines(SESSION).flatMap((l) => {
      const r = JSON.parse(l) as { type: string; isSidechain?: boolean; message?: { content: unknown } }
      return r.type === 'user' && !r.isSidechain && typeof r.message?.content === 'string' ? [r.message.content] : []
    })
    const read_ = ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])))
    for (const t of texts) expect(read_).toContain(t)
    expect(ms.filter((m) => m.role === 'assistant' && m.kind === 'normal').length).toBeGreaterThan(1)
  })
})

describe('Claude Code 2.1 attachment records', () => {
  const s = read(readFileSync(ATTACHMENTS, 'utf8'))
  const byId = (n: number): Message | undefined =>
    s.messages.find((m) =>
      m.id ===
        `5a17c0de-00${n.toString(16).padStart(2, '0')}-40${n.toString(16).padStart(2, '0')}-80${n.toString(16).padStart(2, '0')}-0000000000${
          n.toString(16).padStart(2, '0')
        }`
    )

  it('read the context they put into the prompt as injected user messages, with the attachment as metadata', () => {
    const hook = byId(2)
    expect(hook?.kind).toBe('synthetic')
    expect(hook?.parts).toEqual([{ type: 'text', text: 'Ledger house rule: amounts are integers in cents.' }])
    expect(hook?.metadata).toEqual({
      origin: 'attachment',
      attachment: { type: 'hook_additional_context', hookName: 'SessionStart:startup', hookEvent: 'SessionStart' },
    })
    const edited = byId(6)
    expect(edited?.kind).toBe('synthetic')
    expect(edited?.parts[0]).toEqual({
      type: 'text',
      text: '/home/dev/ledger/src/post.ts:\n14\t// TODO round half-even\n15\texport const post = (cents: number) => cents',
    })
    expect(edited?.metadata?.['attachment']).toEqual({ type: 'edited_text_file', filename: '/home/dev/ledger/src/post.ts' })
  })

  it('one with no text is counted by its type, not read', () => {
    expect(s.skipped).toEqual({ 'attachment (hook_success, no text)': 1 })
  })

  it('a sidechain written after its Task result is read inline after that result', () => {
    const order = s.messages.map((m) => `${m.role}/${m.kind}${m.metadata?.['subagent'] === undefined ? '' : '/sub'}`)
    expect(order).toEqual([
      'user/synthetic',
      'user/normal',
      'assistant/normal',
      'tool/normal',
      'user/display/sub',
      'assistant/display/sub',
      'tool/display/sub',
      'assistant/display/sub',
      'user/synthetic',
      'assistant/normal',
    ])
    expect(s.subagents).toEqual([{ toolCallId: 'toolu_01TodoTask', agentId: 'a7c41e0', messages: 4, placed: true }])
  })
})

describe('images in Claude Code tool results', () => {
  const IMAGES = join(DIR, '5e0a7c3d-91b2-4f6e-8d14-a2c6b9e07f35.jsonl')
  const PNG = Uint8Array.from(
    atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
    (c) => c.charCodeAt(0),
  )
  const results = () => read(readFileSync(IMAGES, 'utf8')).messages.flatMap((m) => m.parts).flatMap((p) => (p.type === 'tool_result' ? [p] : []))
  it('carries the image of a Read of a PNG, not the text "[image]"', () => {
    expect(results()[0]).toMatchObject({ toolCallId: 'toolu_01ReadLogo', name: 'Read', content: [{ type: 'image', data: PNG, mediaType: 'image/png' }] })
  })
  it("carries an MCP screenshot's text and image in order", () => {
    expect(results()[1]?.content).toEqual([
      { type: 'text', text: 'Took a screenshot of the current page viewport.' },
      { type: 'image', data: PNG, mediaType: 'image/png' },
    ])
  })
})
