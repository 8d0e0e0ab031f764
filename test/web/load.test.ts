/**
 * The explorer's reading of a session file (`web/load.ts`, run in its loader worker): every format
 * the command line reads, detected by the command line's own signatures, from the file's text or
 * bytes (a chat export's zip as downloaded), and a clear word for a file that is none of them.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { toJSON, toJSONL } from '../../src/history/codec.ts'
import { textMessage } from '../../src/message/message.ts'
import { INPUT_FORMATS } from '../../src/sessions/input-formats.ts'
import { readSessionFile } from '../../src/sessions/session-file.ts'
import { decodeSessionFile, decodeSessionFiles, formatTitle } from '../../web/load.ts'
import { loadHistory } from '../../src/cli/_load.ts'

const fixtures = join(import.meta.dirname, '..', 'fixtures')
const bytes = (path: string): Uint8Array => new Uint8Array(readFileSync(join(fixtures, path)))
const chat = [textMessage('user', 'What is chatfold?'), textMessage('assistant', 'A history toolkit.')]
const formatOf = (input: string | Uint8Array) =>
  E.map((r: { readonly format: string; readonly messages: ReadonlyArray<unknown> }) => [r.format, r.messages.length])(decodeSessionFile(input))

describe('decodeSessionFile', () => {
  it('reads chatfold JSONL, a JSON array, one message written over several lines, a chat body and AI SDK messages', () => {
    expect(formatOf(toJSONL(chat))).toEqual(E.right(['chatfold JSONL', 2]))
    expect(formatOf(toJSONL(chat.slice(0, 1)))).toEqual(E.right(['chatfold JSONL', 1]))
    expect(formatOf(toJSON(chat, 2))).toEqual(E.right(['chatfold JSON', 2]))
    // one message over several lines is one JSON document in chatfold's message form: read as a JSONL of one line
    expect(formatOf(toJSON(chat.slice(0, 1), 2).trim().replace(/^\[\s*|\s*\]$/g, ''))).toEqual(E.right(['chatfold JSONL', 1]))
    // text messages alone fit a plain chat body, read the same as any format that takes them
    expect(formatOf(JSON.stringify([{ role: 'user', content: 'Hi' }]))).toEqual(E.right(['OpenAI Chat Completions request body', 1]))
    const sdk = [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Oslo' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'text', value: 'Rain' } }] },
    ]
    expect(formatOf(JSON.stringify({ messages: sdk }, null, 2))).toEqual(E.right(['AI SDK model messages', 3]))
  })

  it('reads the session files of agent tools and the chat exports, by signature, from their bytes', () => {
    expect(formatOf(bytes('claude-code/5e0a7c3d-91b2-4f6e-8d14-a2c6b9e07f35.jsonl'))).toEqual(E.right(['Claude Code session file', 6]))
    expect(formatOf(bytes('codex/rollout-2026-04-02T10-00-00-019b2f4a-7c13-7e20-9d5a-4e8c0b6f1d23.jsonl'))).toEqual(E.right(['OpenAI Codex CLI rollout', 8]))
    expect(formatOf(bytes('chatgpt/conversations.json'))).toEqual(E.right(['ChatGPT data export', 15]))
    // the export's zip as it is downloaded reads the same conversations
    expect(formatOf(zipSync({ 'conversations.json': bytes('chatgpt/conversations.json') }))).toEqual(E.right(['ChatGPT data export', 15]))
  })

  it('reads a session file of each tool the command line reads, as the format the command line detects', () => {
    const files = [
      'claude-ai/conversations.json',
      'cline/1767949200000/api_conversation_history.json',
      'roo-code/0199a3c2-7d41-7b60-9e2f-5c8d1a4b7e30/api_conversation_history.json',
      'copilot/3f1c2b0a-9d8e-4f7a-b6c5-1e2d3c4b5a69.json',
      'copilot/3f1c2b0a-9d8e-4f7a-b6c5-1e2d3c4b5a69.jsonl',
      'copilot/git-ai-vscode-event-stream.jsonl',
      'gemini-cli/session-2026-04-02T16-30-6f0c2d1e.json',
      'gemini-cli/session-2026-05-11T08-00-9a8b7c6d.jsonl',
      'opencode/ses_3f1a9c0e2ffeQ7mK2vLb8xYz4D.json',
      'pi/2026-02-20T20-17-00-000Z_1a6f6bc4-2e7d-4c1a-9b8e-5f0d3c2a1b90.jsonl',
    ]
    const seen = files.map((f) => {
      const cli = readSessionFile({})(bytes(f))
      const page = decodeSessionFile(bytes(f), f)
      if (E.isLeft(cli) || E.isLeft(page)) throw new Error(`${f} does not read: ${JSON.stringify(E.isLeft(page) ? page.left : cli)}`)
      expect(page.right.messages).toEqual(cli.right.messages)
      expect(page.right.format).toBe(formatTitle(cli.right.format))
      return cli.right.format
    })
    expect(seen).toEqual(['claude-ai', 'cline', 'cline', 'copilot', 'copilot', 'copilot-events', 'gemini-cli', 'gemini-cli', 'opencode', 'pi'])
  })

  it('titles every input format by the head of its description', () => {
    for (const f of INPUT_FORMATS) {
      expect(formatTitle(f.name).length).toBeGreaterThan(3)
      expect(f.description.startsWith(formatTitle(f.name))).toBe(true)
    }
  })

  it('says a JSON object that is no session is not one, naming what it has', () => {
    const manifest = JSON.stringify({ name: 'chatfold', version: '0.1.0', scripts: { test: 'vitest' } }, null, 2)
    expect(decodeSessionFile(manifest)).toEqual(
      E.left("Cannot tell the format: no format's signature fits (one JSON document with name, version, scripts)"),
    )
  })

  it('names the format and the bad line of a file its reader refuses', () => {
    const bad = `${toJSONL(chat.slice(0, 1))}{"id":"m2","role":"robot","parts":[]}\n`
    expect(decodeSessionFile(bad)).toEqual(
      E.left('Cannot read it as chatfold JSONL (chatfold-jsonl): line 2: role: expected "system" | "user" | "assistant" | "tool", got "robot"'),
    )
  })
})

describe('decodeSessionFiles', () => {
  const CLAUDE = 'claude-code/7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47'
  const dropped = (path: string, name = path.split('/').pop() as string) => ({ name, bytes: bytes(path) })

  it('reads a Claude Code session dropped with its sub-agent transcript as the command line reads it from disk', () => {
    const cli = loadHistory(join(fixtures, `${CLAUDE}.jsonl`), { subagents: 'inline' })
    const alone = decodeSessionFiles([dropped(`${CLAUDE}.jsonl`)])
    const both = decodeSessionFiles([dropped(`${CLAUDE}.jsonl`), dropped(`${CLAUDE}/subagents/agent-a3f9d21.jsonl`)])
    if (E.isLeft(alone) || E.isLeft(both)) throw new Error(JSON.stringify([alone, both]))
    // the sidechain's messages are there only when its transcript comes with the session
    expect(both.right.messages.length).toBeGreaterThan(alone.right.messages.length)
    expect(both.right.messages).toEqual(cli.messages)
    expect(both.right.notes).toContain('read 1 sub-agent transcript dropped with it: agent-a3f9d21.jsonl')
    expect(both.right.notes.join('\n')).not.toContain('were not dropped with it')
    expect(alone.right.notes.join('\n')).toContain('were not dropped with it')
  })

  it('reads a Cline task dropped with its ui_messages.json as the command line does, and names a file it does not read', () => {
    const task = 'cline/1767949200000'
    const cli = loadHistory(join(fixtures, task, 'api_conversation_history.json'), {})
    const r = decodeSessionFiles([
      dropped(`${task}/ui_messages.json`),
      dropped(`${task}/api_conversation_history.json`),
      dropped(`${task}/task_metadata.json`),
    ])
    if (E.isLeft(r)) throw new Error(r.left)
    expect(r.right.format).toBe(formatTitle('cline'))
    expect(r.right.messages).toEqual(cli.messages)
    expect(r.right.notes).toContain('read ui_messages.json dropped with it')
    expect(r.right.notes).toContain('not read (one session at a time, with the files it reads beside it): task_metadata.json')
  })

  it('names a sub-agent transcript that is not JSON', () => {
    const r = decodeSessionFiles([dropped(`${CLAUDE}.jsonl`), { name: 'agent-x.jsonl', bytes: new TextEncoder().encode('{"a":\n') }])
    expect(E.isLeft(r) && r.left).toMatch(/^agent-x\.jsonl:1: not JSON/)
  })
})
