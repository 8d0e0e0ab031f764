/** Helpers shared by the adapter tests. */
import * as E from 'fp-ts/Either'
import type { Message, Messages } from '../../src/message/message.ts'
import type { Part } from '../../src/message/part-model.ts'
import { type DecodeFailure, formatDecodeFailure } from '../../src/message/failure.ts'

/** The Right of an Either, or a thrown error naming the Left. */
export const right = <L, A>(e: E.Either<L, A>): A => {
  if (E.isRight(e)) return e.right
  const left = e.left as unknown
  throw new Error(`expected Right, got Left: ${Array.isArray(left) ? formatDecodeFailure(left as DecodeFailure) : JSON.stringify(left)}`)
}

/** The Left of an Either, or a thrown error. */
export const left = <L, A>(e: E.Either<L, A>): L => {
  if (E.isLeft(e)) return e.left
  throw new Error('expected Left, got Right')
}

/** A history without message ids (the adapters' wire forms carry none). */
export const withoutIds = (ms: Messages): ReadonlyArray<Omit<Message, 'id'>> => ms.map(({ id: _id, ...rest }) => rest)

let n = 0

/** A normal message with a fresh id. */
export const msg = (role: Message['role'], parts: ReadonlyArray<Part>, fields: Partial<Message> = {}): Message => ({
  id: `m${++n}`,
  role,
  kind: 'normal',
  parts,
  ...fields,
})

export const text = (t: string): Part => ({ type: 'text', text: t })
export const call = (id: string, name: string, args = '{}', status: 'pending' | 'running' | 'complete' | 'error' = 'complete'): Part => ({
  type: 'tool_call',
  id,
  name,
  arguments: args,
  status,
})
export const result = (toolCallId: string, content: string, fields: { readonly name?: string; readonly isError?: boolean } = {}): Part => ({
  type: 'tool_result',
  toolCallId,
  content,
  isError: fields.isError ?? false,
  ...(fields.name === undefined ? {} : { name: fields.name }),
})
