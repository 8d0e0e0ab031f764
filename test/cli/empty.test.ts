import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { toJSONL } from '../../src/history/codec.ts'

let dir = ''
const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-empty-'))
})
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

describe('an empty history', () => {
  it('reads back from the chatfold JSONL chatfold writes for it (an empty file), with a note', async () => {
    expect(toJSONL([])).toBe('')
    const file = join(dir, 'empty.jsonl')
    writeFileSync(file, toJSONL([]))
    for (const from of [[], ['--from', 'chatfold-jsonl']]) {
      const r = await cli('stats', file, ...from, '--json', '--encoding', 'heuristic')
      expect(r.code, r.err).toBe(EXIT.ok)
      expect(JSON.parse(r.out)).toMatchObject({ format: 'chatfold-jsonl', messages: 0 })
      expect(JSON.stringify(JSON.parse(r.out))).toContain('is empty')
    }
    // another format named is still refused: an empty file is none of them
    expect((await cli('stats', file, '--from', 'codex')).code).toBe(EXIT.input)
  })

  it.each(['anthropic', 'openai-chat', 'openai-responses', 'gemini'])('converts to an empty %s request that check --provider names', async (to) => {
    const file = join(dir, 'empty.jsonl')
    writeFileSync(file, '')
    const body = join(dir, `${to}.json`)
    const converted = await cli('convert', file, '--to', to, '-o', body)
    expect(converted.code, converted.err).toBe(EXIT.ok)
    expect(Object.values(JSON.parse(readFileSync(body, 'utf8')) as object)).toEqual([[]])
    const checked = await cli('check', body, '--provider', to, '--json')
    expect(checked.code, checked.err).toBe(EXIT.ok)
    expect(JSON.parse(checked.out)).toMatchObject({ provider: to, checked: 'request', violations: [] })
  })
})
