/**
 * A chat export's list of conversations (the ChatGPT and Claude.ai `conversations.json`) read one
 * conversation at a time, and the note both exports give of the branches they leave out or add.
 * Private to the export readers.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../message/failure.ts'
import type { ChatExportConversation } from './chat-export.ts'
import { type Fields, fields, type Rec } from './_fields.ts'

/**
 * Reads an array of conversations with `read` (each one checked to be an object first, named
 * `[i]`): every conversation read, or every failure recorded on the way, by path.
 */
export const readConversations =
  (read: (f: Fields, c: Rec, at: string) => ChatExportConversation | undefined) =>
  (u: unknown): E.Either<DecodeFailure, ReadonlyArray<ChatExportConversation>> => {
    const f = fields()
    const list = f.arr(u, '')
    if (list === undefined) return E.left(f.issues)
    const out: ChatExportConversation[] = []
    list.forEach((x, i) => {
      const c = f.obj(x, `[${i}]`)
      const r = c === undefined ? undefined : read(f, c, `[${i}]`)
      if (r !== undefined) out.push(r)
    })
    return f.issues.length > 0 ? E.left(f.issues) : E.right(out)
  }

/** The note on a conversation's other branches: read after the active one (`all`), or left out; none when there are none. */
export const otherBranchesNote = (count: number, all: boolean, what = ''): ReadonlyArray<string> =>
  count === 0 ? [] : [
    `${count} other branch${count === 1 ? '' : 'es'}${what === '' ? '' : ` (${what})`} ${
      all ? 'read after the active one, as display messages' : 'left out (--all-branches reads them)'
    }`,
  ]

/** The result an export's call with no result of its own is answered with (a `synthetic` tool message). */
export const NO_RESULT = '(the export holds no result of this call)'

/** The note on the calls answered with `NO_RESULT`; none when there are none. */
export const unansweredNote = (count: number): ReadonlyArray<string> =>
  count === 0 ? [] : [`${count} tool call${count === 1 ? '' : 's'} with no result in the export followed by a synthetic tool message saying so`]
