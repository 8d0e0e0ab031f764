/**
 * The explorer's reading of a session file (`web/load.ts`, run in its loader worker): each format a
 * session comes in, and a clear word for a file that is none of them.
 */
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { toJSONL } from '../../src/history/codec.ts'
import { textMessage } from '../../src/message/message.ts'
import { decodeSessionFile } from '../../web/load.ts'

const chat = [textMessage('user', 'What is chatfold?'), textMessage('assistant', 'A history toolkit.')]
const formatOf = (text: string) =>
  E.map((r: { readonly format: string; readonly messages: ReadonlyArray<unknown> }) => [r.format, r.messages.length])(decodeSessionFile(text))

describe('decodeSessionFile', () => {
  it('reads chatfold JSONL, a JSON array, one message written over several lines, and AI SDK messages', () => {
    expect(formatOf(toJSONL(chat))).toEqual(E.right(['chatfold JSONL', 2]))
    expect(formatOf(toJSONL(chat.slice(0, 1)))).toEqual(E.right(['chatfold JSONL', 1]))
    expect(formatOf(JSON.stringify(chat, null, 2))).toEqual(E.right(['chatfold JSON', 2]))
    expect(formatOf(JSON.stringify(chat[0], null, 2))).toEqual(E.right(['chatfold JSON', 1]))
    expect(formatOf(JSON.stringify([{ role: 'user', content: 'Hi' }]))).toEqual(E.right(['AI SDK messages', 1]))
    expect(formatOf(JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }] }, null, 2))).toEqual(
      E.right(['AI SDK messages', 2]),
    )
  })

  it('says a JSON object that is no session is not one, rather than listing its lines as bad JSONL', () => {
    const manifest = JSON.stringify({ name: 'chatfold', version: '0.1.0', scripts: { test: 'vitest' } }, null, 2)
    expect(decodeSessionFile(manifest)).toEqual(
      E.left(
        'Not a session file: it is one JSON object, not chatfold JSONL (a message a line), a JSON array of messages, nor an object with `messages` (AI SDK)',
      ),
    )
  })

  it('names the bad line of a JSONL file', () => {
    const bad = `${toJSONL(chat.slice(0, 1))}{"id":"m2","role":"robot","parts":[]}\n`
    expect(decodeSessionFile(bad)).toEqual(E.left('Cannot decode the JSONL: line 2: role: expected "system" | "user" | "assistant" | "tool", got "robot"'))
  })
})
