import { describe, expect, it } from 'vitest'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'
import { artifactLedger, carriedLedger, LEDGER_KEY } from '../../src/history/ledger.ts'
import { EMPTY_LEDGER, ledgerMinus, mergeLedgers } from '../../src/history/artifact-ledger.ts'

const call = (id: string, name: string, args: unknown): Message =>
  makeMessage({ role: 'assistant', parts: [toolCall({ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })] })
const result = (id: string, content: string, isError = false): Message =>
  makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: id, content, isError })] })

describe('artifactLedger', () => {
  it("reads the paths of Claude Code's, Codex's, Gemini CLI's and opencode's file tools, and any tool's path", () => {
    const l = artifactLedger([
      call('a', 'Read', { file_path: '/p/a.ts' }),
      call('b', 'Write', { file_path: '/p/b.ts', content: '' }),
      call('c', 'Edit', { file_path: '/p/c.ts', old_string: 'x', new_string: 'y' }),
      call('d', 'MultiEdit', { file_path: '/p/d.ts', edits: [] }),
      call('e', 'NotebookEdit', { notebook_path: '/p/e.ipynb' }),
      call('f', 'apply_patch', { input: '*** Begin Patch\n*** Add File: f.ts\n+x\n*** Update File: g.ts\n@@\n*** Delete File: h.ts\n*** End Patch\n' }),
      call('g', 'read_file', { absolute_path: '/p/i.ts' }),
      call('h', 'write_file', { file_path: '/p/j.ts', content: '' }),
      call('i', 'replace', { file_path: '/p/k.ts' }),
      call('j', 'edit', { filePath: '/p/l.ts' }),
      call('k', 'read_many_files', { paths: ['/p/m.ts', '/p/n.ts'] }),
      call('l', 'lint_file', { path: '/p/o.ts' }),
    ])
    expect(l.read).toEqual(['/p/a.ts', '/p/i.ts', '/p/m.ts', '/p/n.ts', '/p/o.ts'])
    expect(l.written).toEqual(['/p/b.ts', 'f.ts', '/p/j.ts'])
    expect(l.edited).toEqual(['/p/c.ts', '/p/d.ts', '/p/e.ipynb', 'g.ts', 'h.ts', '/p/k.ts', '/p/l.ts'])
  })

  it('gives each command its status: an exit code in the result, or the result marked as an error', () => {
    const l = artifactLedger([
      call('a', 'Bash', { command: 'npm test' }),
      result('a', 'FAIL test/cart.test.ts', true),
      call('b', 'shell', { command: ['bash', '-lc', 'npm run build'] }),
      result('b', '{"output":"ok","metadata":{"exit_code":0}}'),
      call('c', 'shell', { command: ['bash', '-lc', 'npm test -- brew'] }),
      result('c', 'Exit code: 1\nWall time: 2.3 seconds\nOutput:\n1 failing\n'),
      call('d', 'run_shell_command', { command: 'ls' }),
    ])
    expect(l.commands).toEqual([
      { toolCallId: 'a', tool: 'Bash', command: 'npm test', status: 'failed' },
      { toolCallId: 'b', tool: 'shell', command: 'npm run build', status: 'ok', exitCode: 0 },
      { toolCallId: 'c', tool: 'shell', command: 'npm test -- brew', status: 'failed', exitCode: 1 },
      { toolCallId: 'd', tool: 'run_shell_command', command: 'ls', status: 'unknown' },
    ])
    expect(l.errors).toEqual([{ toolCallId: 'a', tool: 'Bash', preview: 'FAIL test/cart.test.ts' }])
  })

  it("keeps the user's text turns whole, and merges a summary's carried ledger at its place", () => {
    const earlier = { ...EMPTY_LEDGER, edited: ['/p/old.ts'], instructions: [{ messageId: 'u0', text: 'Start.' }] }
    const summary = makeMessage({
      role: 'user',
      parts: [{ type: 'text', text: '## Goal' }],
      metadata: { compaction: { summarised: 3 }, [LEDGER_KEY]: earlier },
    })
    const l = artifactLedger([summary, textMessage('user', 'Go on.', { id: 'u1' }), call('a', 'Edit', { file_path: '/p/new.ts' })])
    expect(l.edited).toEqual(['/p/old.ts', '/p/new.ts'])
    expect(l.instructions).toEqual([{ messageId: 'u0', text: 'Start.' }, { messageId: 'u1', text: 'Go on.' }])
    expect(carriedLedger(summary)).toEqual(earlier)
    expect(carriedLedger(makeMessage({ role: 'user', metadata: { [LEDGER_KEY]: { read: 3 } } }))).toBeUndefined()
  })

  it('merges by key, earlier first, and takes a later status for a command that had none', () => {
    const a = { ...EMPTY_LEDGER, read: ['x'], commands: [{ toolCallId: 'c', tool: 'Bash', command: 't', status: 'unknown' as const }] }
    const b = { ...EMPTY_LEDGER, read: ['y', 'x'], commands: [{ toolCallId: 'c', tool: 'Bash', command: 't', status: 'failed' as const, exitCode: 2 }] }
    const m = mergeLedgers(b)(a)
    expect(m.read).toEqual(['x', 'y'])
    expect(m.commands).toEqual(b.commands)
    expect(ledgerMinus(a)(m).read).toEqual(['y'])
    expect(ledgerMinus(m)(m)).toEqual(EMPTY_LEDGER)
  })
})
