import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { afterAll, describe, expect, it } from 'vitest'
import { run } from '../../src/cli/main.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'

const SESSION = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'claude-code', 'session.jsonl')
const tmp = mkdtempSync(join(tmpdir(), 'chatfold-receipts-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

describe('the receipt on the command line', () => {
  it('compact --json prints the receipt, and the summary it writes keeps the ledger', async () => {
    const r = await cli('compact', SESSION, '--keep-recent-tokens', '0', '--encoding', 'heuristic', '--json')
    expect(r.code).toBe(0)
    const report = JSON.parse(r.err) as { receipt: { summarised: string[]; toolCalls: Array<{ id: string; name: string }> } }
    expect(report.receipt.summarised).toContain('u1')
    expect(report.receipt.toolCalls).toContainEqual({ id: 'toolu_02Bash', name: 'Bash' })
    const out = fromJSONL(r.out)
    if (E.isLeft(out)) throw new Error('not JSONL')
    const ledger = out.right.find((m) => m.metadata?.['ledger'] !== undefined)?.metadata?.['ledger'] as { commands: Array<{ status: string }> }
    expect(ledger.commands).toContainEqual(expect.objectContaining({ command: 'npm test -- cart', status: 'failed' }))
  })

  it('prune --json prints each tool result it cleared', async () => {
    const file = join(tmp, 'big.jsonl')
    writeFileSync(
      file,
      toJSONL([
        textMessage('user', 'Read it.', { id: 'u' }),
        makeMessage({ id: 'a', role: 'assistant', parts: [toolCall({ id: 'c1', name: 'Read', arguments: '{"file_path":"/p/a.ts"}' })] }),
        makeMessage({ id: 't', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'x = 1\n'.repeat(2_000) })] }),
        textMessage('assistant', 'Done.', { id: 'd' }),
      ]),
    )
    const r = await cli('prune', file, '--protect-tokens', '0', '--minimum-savings', '0', '--encoding', 'heuristic', '--json')
    expect(r.code).toBe(0)
    const report = JSON.parse(r.err) as { receipt: { cleared: Array<Record<string, unknown>> } }
    expect(report.receipt.cleared).toEqual([{
      messageId: 't',
      toolCallId: 'c1',
      tool: 'Read',
      part: 'result',
      tokensBefore: 3_000,
      tokensAfter: expect.any(Number),
      ref: expect.stringMatching(/^c1@[0-9a-f]{8}$/),
    }])
  })
})
