import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'

const CODEX = new URL('../fixtures/codex/', import.meta.url).pathname
const COMPACTED = join(CODEX, 'rollout-2026-04-22T15-03-11-019b2f40-8c17-7d32-a5e9-4b0c6d1f2e83.jsonl')
let dir = ''

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

type Item = { readonly type: string; readonly role?: string; readonly id?: string; readonly encrypted_content?: string; readonly content?: unknown }
type Rec = { readonly type: string; readonly payload: Record<string, unknown> }
const records = (text: string): ReadonlyArray<Rec> => text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Rec)
/** The text of a message item: its string content, or its content items' texts joined. */
const words = (i: Item): string =>
  typeof i.content === 'string' ? i.content : Array.isArray(i.content) ? i.content.map((c: { text?: string }) => c.text ?? '').join('') : ''

/** A rollout converted to a Responses body and checked, each by the command line. */
const convertAndCheck = async (file: string): Promise<ReadonlyArray<Item>> => {
  const out = join(dir, 'body.json')
  const converted = await cli('convert', file, '--to', 'openai-responses', '-o', out)
  expect(converted.code, converted.err).toBe(EXIT.ok)
  const checked = await cli('check', out, '--json')
  expect(checked.code, checked.out + checked.err).toBe(EXIT.ok)
  return (JSON.parse(readFileSync(out, 'utf8')) as { input: ReadonlyArray<Item> }).input
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-codex-'))
})
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

describe('a Codex rollout converted to a Responses body', () => {
  it.each(readdirSync(CODEX).filter((f) => f.endsWith('.jsonl')))('%s passes check', async (name) => {
    await convertAndCheck(join(CODEX, name))
  })

  it('writes no made-up id on reasoning items (a rollout writes none) and passes check with several of them', async () => {
    // the rollout as it stood before its compaction: three reasoning items, none with an id
    const text = readFileSync(COMPACTED, 'utf8')
    const lines = text.split('\n')
    const before = lines.slice(0, lines.findIndex((l) => l.includes('"context_compacted"'))).join('\n')
    const reasoning = records(before).filter((r) => r.type === 'response_item' && r.payload['type'] === 'reasoning')
    expect(reasoning.length).toBe(3)
    expect(reasoning.every((r) => !('id' in r.payload))).toBe(true)
    const file = join(dir, 'before-compaction.jsonl')
    writeFileSync(file, before)
    const items = (await convertAndCheck(file)).filter((i) => i.type === 'reasoning')
    // one item each, in order, with its own encrypted content (two summaries of one item stay one item)
    expect(items.map((i) => i.encrypted_content)).toEqual(reasoning.map((r) => r.payload['encrypted_content']))
    expect(items.every((i) => !('id' in i))).toBe(true)
  })

  it('sends the compaction item and the replacement’s own developer prompt, not the empty summary nor the prompts from before', async () => {
    const recs = records(readFileSync(COMPACTED, 'utf8'))
    const compacted = recs.find((r) => r.type === 'compacted')?.payload as { message: string; replacement_history: ReadonlyArray<Item> }
    expect(compacted.message).toBe('')
    const compaction = compacted.replacement_history.find((i) => i.type === 'compaction')
    expect(compaction).toBeDefined()
    const input = await convertAndCheck(COMPACTED)
    expect(input.filter((i) => i.type === 'compaction')).toEqual([compaction])
    // one developer prompt (the replacement's), sent as a developer message as the rollout has it
    const developer = compacted.replacement_history.filter((i) => i.role === 'developer').map(words)
    expect(developer.length).toBe(1)
    expect(input.filter((i) => i.role === 'developer' || i.role === 'system').map((i) => [i.role, words(i)])).toEqual(developer.map((t) => ['developer', t]))
    // the empty summary is no turn
    expect(input.filter((i) => i.type === 'message' && words(i) === '')).toEqual([])
  })
})
