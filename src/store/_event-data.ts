/**
 * A chat event's request decoded once, where it enters (its public names are exported from
 * `simulator.ts`): the data of a message (role, content, ids, metadata) checked as the chat input
 * it will become, and the time it is scheduled for. The simulator adds what it alone knows, the
 * input id it generates and the time, without checking the rest again.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, type DecodeIssue, failureFromErrors, prefixFailure } from '../message/failure.ts'
import { IsoTimestampC } from '../message/message.ts'
import { ChatIdC, type ChatInput, validateInput, type ValidInput } from './input.ts'

declare const decodedEvent: unique symbol

/**
 * A chat event as a request describes it, decoded once by `decodeEventData` (to apply now) or
 * `decodeScheduledEvent` (to schedule for `scheduled_time`): the fields of the chat input it
 * becomes, all but the timestamp and (unless the data gives one) the input id, which the
 * simulator sets. `submitDecodedEvent` and a store's `submitDecoded` take it and check nothing of
 * it again.
 *
 * @since 0.1.0
 * @category model
 */
export type DecodedEvent = {
  readonly scheduled_time?: string
  readonly data: Omit<ChatInput, 'modality_type' | 'timestamp' | 'input_id'> & { readonly input_id?: string }
} & { readonly [decodedEvent]: true }

/** The data of a decoded event. */
type EventFields = DecodedEvent['data']

const hasOwn = (u: object, k: string): boolean => Object.prototype.hasOwnProperty.call(u, k)

/** Stands for the time the simulator sets while the data is checked: any valid timestamp does. */
const SOME_TIME = '1970-01-01T00:00:00Z'

/** Stands for the input id the simulator generates, where the caller does not know it. */
const SOME_ID = 'generated'

/**
 * Decodes a message's data as the chat input it becomes, `inputId` standing for the generated
 * input id when the data gives none; a `timestamp` is refused (the simulator sets it). Paths are
 * relative to the data.
 */
export const decodeFields = (data: unknown, inputId: string): E.Either<DecodeFailure, EventFields> => {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return E.left([{ path: '', expected: 'chat message data (an object with role and content)', actual: data }])
  }
  const fields = data as Readonly<Record<string, unknown>>
  const issues: DecodeIssue[] = []
  if (hasOwn(fields, 'timestamp')) {
    issues.push({ path: 'timestamp', expected: 'no timestamp (the simulator sets it: schedule the event for a time instead)', actual: fields['timestamp'] })
  }
  const r = validateInput({ modality_type: 'chat', input_id: inputId, ...fields, timestamp: SOME_TIME })
  if (E.isLeft(r)) return E.left([...issues, ...r.left])
  if (issues.length > 0) return E.left(issues)
  const { modality_type: _modality, timestamp: _timestamp, input_id, ...rest } = r.right
  return E.right(hasOwn(fields, 'input_id') ? { ...rest, input_id } : rest)
}

/** Decodes a request to schedule an event: `scheduled_time` and the data, paths from the request (`data.role`). */
export const decodeSchedule = (
  request: { readonly scheduled_time: unknown; readonly data: unknown },
  inputId: string,
): E.Either<DecodeFailure, DecodedEvent> => {
  const time = IsoTimestampC.decode(request.scheduled_time)
  const fields = decodeFields(request.data, inputId)
  const issues = [
    ...(E.isLeft(time) ? prefixFailure('scheduled_time')(failureFromErrors(time.left)) : []),
    ...(E.isLeft(fields) ? prefixFailure('data')(fields.left) : []),
  ]
  if (issues.length > 0 || E.isLeft(time) || E.isLeft(fields)) return E.left(issues)
  return E.right(decoded({ scheduled_time: time.right, data: fields.right }))
}

/** Marks what the decoders above made. */
export const decoded = (event: { readonly scheduled_time?: string; readonly data: EventFields }): DecodedEvent => event as DecodedEvent

/**
 * The chat input of decoded data at `timestamp`, with `inputId` as its input id unless the data
 * gives one: decoded fields and the simulator's own id and time, so nothing is checked again but
 * the generated id (made of the simulator's `idPrefix`, which its options may have made too long).
 */
export const stampInput = (data: EventFields, inputId: string, timestamp: string): E.Either<DecodeFailure, ValidInput> => {
  if (data.input_id === undefined) {
    const id = ChatIdC.decode(inputId)
    if (E.isLeft(id)) return E.left(prefixFailure('input_id')(failureFromErrors(id.left)))
  }
  return E.right({ modality_type: 'chat', input_id: inputId, ...data, timestamp } as ValidInput)
}

/**
 * Decodes the data of a chat event to apply now (`POST /events/immediate`,
 * `POST /modalities/chat/submit`), once: role, content, optional ids, conversation and metadata,
 * every bad field reported by path (relative to the data); a `timestamp` is refused, since the
 * simulator's clock sets it. Hand the result to a store's `submitDecoded`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeEventData = (data: unknown): E.Either<DecodeFailure, DecodedEvent> =>
  E.map((fields: EventFields) => decoded({ data: fields }))(decodeFields(data, SOME_ID))

/**
 * Decodes a request to schedule a chat event (`POST /events`), once: `scheduled_time` (an ISO-8601
 * timestamp) and the data, as `decodeEventData` does; paths start at `scheduled_time` or `data`.
 * Hand the result to a store's `submitDecoded`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeScheduledEvent = (request: { readonly scheduled_time: unknown; readonly data: unknown }): E.Either<DecodeFailure, DecodedEvent> =>
  decodeSchedule(request, SOME_ID)
