import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromClaudeCode } from '../../src/sessions/claude-code.ts'

/** Two records in Claude Code's shape: a user record whose content has a bare string among its blocks, and a reply opening with whitespace-only text. */
const session = [
  {
    type: 'user',
    uuid: '5b0f3c1e-2d4a-4e6b-9c8d-7a1f0e2b3c4d',
    parentUuid: null,
    sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    timestamp: '2026-02-03T10:00:00.000Z',
    message: { role: 'user', content: ['Rename the helper', { type: 'text', text: 'and update its callers.' }] },
  },
  {
    type: 'assistant',
    uuid: '6c1a4d2f-3e5b-4f7c-8d9e-0b2c4e6a8f1d',
    parentUuid: '5b0f3c1e-2d4a-4e6b-9c8d-7a1f0e2b3c4d',
    sessionId: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    timestamp: '2026-02-03T10:00:04.000Z',
    message: {
      id: 'msg_01Xa',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: '\n\n' }, { type: 'text', text: 'Done: renamed and updated 3 callers.' }],
    },
  },
].map((r) => JSON.stringify(r)).join('\n')

describe('fromClaudeCode on content blocks a provider would not take as they are', () => {
  const r = fromClaudeCode({})(session)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const texts = r.right.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'text' ? [`${m.role}: ${p.text}`] : [])))

  it('reads a bare string among the blocks as text', () => {
    expect(texts).toContain('user: Rename the helper')
    expect(texts).toContain('user: and update its callers.')
  })

  it('names the whitespace-only text it leaves out in a note', () => {
    expect(texts).not.toContain('assistant: \n\n')
    expect(r.right.notes).toContainEqual(expect.stringMatching(/^1 whitespace-only text block of replies left out/))
  })
})
