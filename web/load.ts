/**
 * Reading a session file in the explorer: chatfold JSONL (one message a line), a chatfold JSON
 * array, or AI SDK model messages (an array of them, or a request object with `messages`).
 */
import * as E from 'fp-ts/Either'
import { fromModelMessages } from '../src/adapters/ai-sdk/model-messages-from.ts'
import { fromJSONL } from '../src/history/codec.ts'
import { formatDecodeFailure } from '../src/message/failure.ts'
import { decodeMessage, decodeMessages, type Messages } from '../src/message/message.ts'

export type Loaded = { readonly messages: Messages; readonly format: string }

/** Decodes a file's text, trying the formats a session file comes in; `Left` says what was wrong. */
export const decodeSessionFile = (text: string): E.Either<string, Loaded> => {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('[')) {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (e) {
      return E.left(`Cannot read the file as JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
    const own = decodeMessages(json)
    if (E.isRight(own)) return E.right({ messages: own.right, format: 'chatfold JSON' })
    const sdk = fromModelMessages({ messages: json })
    if (E.isRight(sdk)) return E.right({ messages: sdk.right, format: 'AI SDK messages' })
    return E.left(`Cannot decode the JSON array as chatfold messages (${formatDecodeFailure(own.left)}) nor as AI SDK messages (${formatDecodeFailure(sdk.left)})`)
  }
  // a request object with messages (AI SDK), or else JSONL (whose lines are objects too)
  const whole = parseOrUndefined(text)
  if (typeof whole === 'object' && whole !== null && 'messages' in whole) {
    const sdk = fromModelMessages(whole)
    return E.isRight(sdk)
      ? E.right({ messages: sdk.right, format: 'AI SDK messages' })
      : E.left(`Cannot decode the JSON object as AI SDK messages: ${formatDecodeFailure(sdk.left)}`)
  }
  const jsonl = fromJSONL(text)
  if (E.isRight(jsonl)) return E.right({ messages: jsonl.right, format: 'chatfold JSONL' })
  // One JSON value that is neither a message a line nor a request: a single message written over
  // several lines, or not a session file at all (its lines are no use to list).
  if (whole !== undefined) {
    const one = decodeMessage(whole)
    return E.isRight(one)
      ? E.right({ messages: [one.right], format: 'chatfold JSON' })
      : E.left(`Not a session file: it is one JSON ${Array.isArray(whole) ? 'array' : whole === null ? 'null' : typeof whole}, not chatfold JSONL (a message a line), a JSON array of messages, nor an object with \`messages\` (AI SDK)`)
  }
  return E.left(`Cannot decode the JSONL: ${formatDecodeFailure(jsonl.left)}`)
}

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
