import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'

describe('chatfold convert --repair on UI messages with a JSON-text tool input', () => {
  it('sends the input as the object it is, and repairs nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-ui-'))
    try {
      const file = join(dir, 'chat.json')
      writeFileSync(
        file,
        JSON.stringify({
          messages: [
            { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
            {
              id: 'a',
              role: 'assistant',
              parts: [{ type: 'step-start' }, { type: 'tool-weather', toolCallId: 'c1', state: 'input-available', input: '{"city":"Oslo"}' }],
            },
          ],
        }),
      )
      let out = ''
      let err = ''
      const code = await run(['convert', file, '--to', 'anthropic', '--repair'], { out: (x) => void (out += x), err: (x) => void (err += x), errIsTTY: false })
      expect(code, err).toBe(EXIT.ok)
      const body = JSON.parse(out) as { messages: Array<{ content: unknown }> }
      expect(body.messages[1]?.content).toEqual([{ type: 'tool_use', id: 'c1', name: 'weather', input: { city: 'Oslo' } }])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
