import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { providerPart } from '../../src/message/part-make.ts'

const dir = mkdtempSync(join(tmpdir(), 'chatfold-notes-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

describe('convert tells what did not cross', () => {
  const file = join(dir, 'history.jsonl')
  writeFileSync(
    file,
    toJSONL([
      textMessage('user', 'Search the docs', { id: 'u1' }),
      makeMessage({
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'text', text: 'Found it.' }, providerPart('google', 'somethingNew', { somethingNew: { x: 1 } })],
      }),
    ]),
  )

  it('prints each note on stderr, one a line', async () => {
    const r = await cli('convert', file, '--to', 'openai-chat')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.err).toContain('1 note from the conversion')
    expect(r.err).toContain('message "a1": left out google "somethingNew"')
  })

  it('lists them in --json', async () => {
    const r = await cli('convert', file, '--to', 'anthropic', '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const report = JSON.parse(r.err) as { notes: ReadonlyArray<{ kind: string; messageId?: string; type?: string }> }
    expect(report.notes).toContainEqual(expect.objectContaining({ kind: 'provider_part_dropped', messageId: 'a1', type: 'somethingNew' }))
  })
})

describe('stats shows what only one provider knows', () => {
  const file = join(dir, 'compacted.jsonl')
  writeFileSync(
    file,
    toJSONL([
      textMessage('user', 'Long work, long ago', { id: 'u0' }),
      textMessage('assistant', 'Done.', { id: 'a0' }),
      makeMessage({ id: 'b', role: 'assistant', parts: [providerPart('anthropic', 'compaction', { type: 'compaction', content: 'Summary of the work.' })] }),
      textMessage('user', 'Next step', { id: 'u1' }),
    ]),
  )

  it('counts provider parts and says where a provider compacted the history', async () => {
    const r = await cli('stats', file, '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.out).toContain('kept as provider parts')
    expect(r.out).toContain('compacted by anthropic at #2 b: the 2 messages before it are not sent')
    const json = JSON.parse((await cli('stats', file, '--encoding', 'heuristic', '--json')).out) as {
      providerParts: Record<string, number>
      compactionBoundary: { index: number }
    }
    expect(json.providerParts).toEqual({ 'anthropic compaction': 1 })
    expect(json.compactionBoundary).toMatchObject({ index: 2, provider: 'anthropic', replaced: 2 })
  })
})

describe('convert --repair says what it changed', () => {
  it('names an orphan result it left out and a call it gave an error result', async () => {
    const { toolCall, toolResult } = await import('../../src/message/part-make.ts')
    const file = join(dir, 'unpaired.jsonl')
    writeFileSync(
      file,
      toJSONL([
        textMessage('user', 'Go', { id: 'u' }),
        makeMessage({ id: 'a', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', arguments: '{}', status: 'complete' })] }),
        makeMessage({ id: 't', role: 'tool', parts: [toolResult({ toolCallId: 'zz', content: 'stray' })] }),
      ]),
    )
    const r = await cli('convert', file, '--to', 'anthropic', '--repair')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.err).toContain('--repair changed the history')
    expect(r.err).toContain('left out the results of "zz", which answer no call')
    expect(r.err).toContain('gave the calls "c1" an "interrupted" error result')
  })
})
