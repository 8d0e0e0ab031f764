import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'

/**
 * A Responses request body that carries on from a response cut short while it reasoned (`status:
 * "incomplete"`, `incomplete_details.reason: "max_output_tokens"`, whose output is one reasoning
 * item): the reasoning item is the last input item, with no reply after it.
 */
const body = {
  model: 'gpt-5',
  store: false,
  include: ['reasoning.encrypted_content'],
  input: [
    { role: 'user', content: 'Prove that there are infinitely many primes.' },
    { type: 'reasoning', id: 'rs_68c1f0a2b9d48190a3e5c7f1d2b4a6e8', summary: [], encrypted_content: 'gAAAAABoyfCi_cut_short' },
  ],
}

describe('a reasoning item with no reply after it', () => {
  it('is refused as what it is, naming its message, not as tool calls that do not pair up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatfold-reasoning-'))
    try {
      const file = join(dir, 'body.json')
      writeFileSync(file, JSON.stringify(body))
      let err = ''
      const code = await run(['convert', file, '--to', 'anthropic'], { out: () => undefined, err: (x) => void (err += x), errIsTTY: false })
      expect(code).toBe(EXIT.problems)
      expect(err).toMatch(/message "[^"]+" \(number 2 of the history\) is reasoning with no reply after it/)
      expect(err).not.toMatch(/do not pair up/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
