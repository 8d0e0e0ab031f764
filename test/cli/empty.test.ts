import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { makeMessage } from '../../src/message/message.ts'
import { text } from '../../src/message/part-make.ts'

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

  it.each(['anthropic', 'openai-chat', 'openai-responses', 'gemini'])(
    'does not convert to an empty %s request, which no provider takes: a failure naming the file and why',
    async (to) => {
      const file = join(dir, 'empty.jsonl')
      writeFileSync(file, '')
      const body = join(dir, `${to}.json`)
      const converted = await cli('convert', file, '--to', to, '-o', body)
      expect(converted.code).toBe(EXIT.problems)
      expect(converted.err).toContain(`cannot convert ${file} to ${to}: it holds no messages`)
      expect(existsSync(body)).toBe(false)
    },
  )

  it('nor a history none of whose messages is sent: it says which were left out and why', async () => {
    const file = join(dir, 'shown-only.jsonl')
    writeFileSync(
      file,
      toJSONL([
        makeMessage({ id: 's1', role: 'system', parts: [text('Be brief.')] }),
        makeMessage({ id: 'd1', role: 'assistant', kind: 'display', parts: [text('(shown, not sent)')] }),
      ]),
    )
    const r = await cli('convert', file, '--to', 'anthropic')
    expect(r.code).toBe(EXIT.problems)
    expect(r.out).toBe('')
    expect(r.err).toContain(`cannot convert ${file} to anthropic: none of its 2 messages is sent as one: 1 left out (display, bookmark or metadata messages`)
    expect(r.err).toContain('1 system message, which goes beside the messages')
    // a history with a message to send converts as before
    writeFileSync(file, toJSONL([makeMessage({ id: 'u1', role: 'user', parts: [text('Hi')] })]))
    expect((await cli('convert', file, '--to', 'anthropic')).code).toBe(EXIT.ok)
  })
})
