import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { fromUIMessages } from '../../src/adapters/ai-sdk/ui-messages-from.ts'
import { toUIMessages } from '../../src/adapters/ai-sdk/ui-messages.ts'

/** A thread as an app persists `useChat`'s messages, one tool part of which lost its `toolCallId`. */
const thread = {
  messages: [
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo and Bergen?' }] },
    {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'tool-weather', toolCallId: 'c1', state: 'output-available', input: { city: 'Oslo' }, output: '4°C' },
        { type: 'tool-weather', state: 'output-available', input: { city: 'Bergen' }, output: '7°C' },
        { type: 'text', text: 'Oslo 4°C; Bergen 7°C.', state: 'done' },
      ],
    },
    { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
  ],
}

describe('a UI tool part without toolCallId', () => {
  it('keeps the rest of the thread, and the part as it came', () => {
    const r = fromUIMessages(thread)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const parts = r.right.flatMap((m) => m.parts)
    expect(parts.filter((p) => p.type === 'tool_call').map((p) => (p.type === 'tool_call' ? p.id : ''))).toEqual(['c1'])
    expect(r.right.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user'])
    const back = toUIMessages()(r.right)
    if (E.isLeft(back)) throw new Error(JSON.stringify(back.left))
    expect(back.right.request.messages[1]?.parts).toContainEqual(thread.messages[1]?.parts[2])
  })

  it('is named in a note by the command line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-ui-'))
    try {
      const file = join(dir, 'chat.json')
      writeFileSync(file, JSON.stringify(thread))
      let out = ''
      let err = ''
      const code = await run(['stats', file, '--json', '--encoding', 'heuristic'], {
        out: (x) => void (out += x),
        err: (x) => void (err += x),
        errIsTTY: false,
      })
      expect(code, err).toBe(EXIT.ok)
      const report = JSON.parse(out) as { format: string; notes: ReadonlyArray<string> }
      expect(report.format).toBe('ui-messages')
      expect(report.notes).toContainEqual(expect.stringMatching(/message a1: parts\[2\] \(tool-weather\) has no toolCallId/))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
