/**
 * Messages: a role, typed parts, a kind that says where the message may go, and optional
 * sender, timestamps, token counts, provenance and metadata: the message codecs and constructors
 * (what a message holds and what it is: `accessors.ts`).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Role, RoleC } from './role.ts'
import type { Part } from './part-model.ts'
import { PartC } from './part-registry.ts'
import { type DecodeFailure, failureFromErrors, formatDecodeFailure, prefixFailure } from './failure.ts'
import { JsonRecordC, parseJsonText } from '../internal/json.ts'
import { withDefault } from '../internal/codec.ts'
import { newId } from '../internal/id.ts'

// --- codecs ---

/**
 * Where a message may go:
 * - `normal`: sent to the model, saved, exported;
 * - `synthetic`: injected guidance, sent to the model for one turn, then ejected;
 * - `ephemeral`: one-turn error feedback, ejected with its paired tool call;
 * - `display`: shown in the UI and saved, never sent to a model;
 * - `bookmark`: a structural divider, rendered as a rule, never sent to a model;
 * - `metadata`: structured data, not rendered, not sent, exported in JSON.
 *
 * @since 0.1.0
 * @category codecs
 */
export const KindC: t.KeyofC<{ normal: null; synthetic: null; ephemeral: null; display: null; bookmark: null; metadata: null }> = t.keyof(
  { normal: null, synthetic: null, ephemeral: null, display: null, bookmark: null, metadata: null },
  'Kind',
)

/** @since 0.1.0 @category model */
export type Kind = t.TypeOf<typeof KindC>

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/

/** The number the ASCII digits of `s` from `from` to `to` make (the pattern has checked that they are digits). */
const digits = (s: string, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) n = n * 10 + s.charCodeAt(i) - 48
  return n
}

/** The days of month `m` (1–12) of year `y` in the proleptic Gregorian calendar, which ISO 8601 uses. */
const daysInMonth = (y: number, m: number): number =>
  m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31

/**
 * Whether the calendar date of an ISO-8601 string exists: `Date.parse` rolls `2024-02-30` over to
 * March 1st instead of refusing it, so the day is checked against its month (leap years included).
 * Read digit by digit, so that checking every message's timestamp allocates nothing.
 */
const realDate = (s: string): boolean => {
  const m = digits(s, 5, 7)
  const d = digits(s, 8, 10)
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(digits(s, 0, 4), m)
}

const isIsoTimestamp = (u: unknown): u is string => typeof u === 'string' && ISO_8601.test(u) && realDate(u) && !Number.isNaN(Date.parse(u))

/**
 * An ISO-8601 timestamp with a time zone (`2026-01-31T12:00:00.000Z`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const IsoTimestampC: t.Type<string, string, unknown> = new t.Type<string, string, unknown>(
  'IsoTimestamp',
  isIsoTimestamp,
  (u, c) => (isIsoTimestamp(u) ? t.success(u) : t.failure(u, c, 'an ISO-8601 timestamp')),
  t.identity,
)

const TokenCountC: t.Type<number, number, unknown> = new t.Type<number, number, unknown>(
  'TokenCount',
  (u): u is number => typeof u === 'number' && Number.isFinite(u) && u >= 0,
  (u, c) => (typeof u === 'number' && Number.isFinite(u) && u >= 0 ? t.success(u) : t.failure(u, c, 'a non-negative number')),
  t.identity,
)

/**
 * Token counts of a message: `total`, and where known the `content`,
 * `thinking` and `tools` shares.
 *
 * @since 0.1.0
 * @category codecs
 */
export const TokensC: t.ReadonlyC<
  t.IntersectionC<
    [
      t.ExactC<t.TypeC<{ total: typeof TokenCountC }>>,
      t.ExactC<t.PartialC<{ content: typeof TokenCountC; thinking: typeof TokenCountC; tools: typeof TokenCountC }>>,
    ]
  >
> = t.readonly(
  t.intersection([t.exact(t.type({ total: TokenCountC })), t.exact(t.partial({ content: TokenCountC, thinking: TokenCountC, tools: TokenCountC }))]),
  'Tokens',
)

/** @since 0.1.0 @category model */
export type Tokens = t.TypeOf<typeof TokensC>

const kindOrNormal: t.Type<Kind, Kind, unknown> = withDefault(KindC, 'normal')

/**
 * The codec of a message. On the wire, parts are type-tagged and bytes are base64; a missing
 * `kind` means `normal`; unknown fields are dropped; `metadata` must be JSON (no cycles, at most
 * 64 levels deep).
 *
 * @example
 * import * as t from 'io-ts'
 * import { MessageC } from 'chatfold/message'
 * const ThreadC = t.type({ title: t.string, messages: t.readonlyArray(MessageC) })
 * ThreadC.is({ title: 'empty', messages: [] }) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const MessageC: t.ReadonlyC<
  t.IntersectionC<
    [
      t.ExactC<t.TypeC<{ id: t.StringC; role: typeof RoleC; parts: t.ReadonlyArrayC<typeof PartC>; kind: typeof kindOrNormal }>>,
      t.ExactC<
        t.PartialC<{
          sender: t.StringC
          conversationId: t.StringC
          createdAt: typeof IsoTimestampC
          updatedAt: typeof IsoTimestampC
          tokens: typeof TokensC
          model: t.StringC
          provider: t.StringC
          error: t.StringC
          metadata: typeof JsonRecordC
        }>
      >,
    ]
  >
> = t.readonly(
  t.intersection([
    t.exact(t.type({ id: t.string, role: RoleC, parts: t.readonlyArray(PartC), kind: kindOrNormal })),
    t.exact(
      t.partial({
        sender: t.string,
        conversationId: t.string,
        createdAt: IsoTimestampC,
        updatedAt: IsoTimestampC,
        tokens: TokensC,
        model: t.string,
        provider: t.string,
        error: t.string,
        metadata: JsonRecordC,
      }),
    ),
  ]),
  'Message',
)

/**
 * A message of a conversation. Readonly all the way down: every function returns a new one.
 *
 * @since 0.1.0
 * @category model
 */
export type Message = t.TypeOf<typeof MessageC>

/**
 * A message's JSON form.
 *
 * @since 0.1.0
 * @category model
 */
export type MessageWire = t.OutputOf<typeof MessageC>

/**
 * The codec of a history.
 *
 * @since 0.1.0
 * @category codecs
 */
export const MessagesC: t.ReadonlyArrayC<typeof MessageC> = t.readonlyArray(MessageC, 'Messages')

/**
 * A conversation history: a readonly array of messages.
 *
 * @since 0.1.0
 * @category model
 */
export type Messages = t.TypeOf<typeof MessagesC>

// --- decoding ---

/**
 * Decodes an untrusted value into a message; the failure lists every bad field by path.
 *
 * @example
 * import { decodeMessage } from 'chatfold/message'
 * decodeMessage({ id: 'm1', role: 'user', parts: [{ type: 'text', data: { text: 'hi' } }] })
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeMessage = (u: unknown): E.Either<DecodeFailure, Message> => E.mapLeft(failureFromErrors)(MessageC.decode(u))

/**
 * Decodes an untrusted value into a history; paths start at the message index
 * (`[3].parts[0].type: expected "text" | …, got "txt"`).
 *
 * @example
 * import { decodeMessages } from 'chatfold'
 * decodeMessages(JSON.parse('[{"id":"1","role":"user","parts":[]}]'))
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodeMessages = (u: unknown): E.Either<DecodeFailure, Messages> => E.mapLeft(failureFromErrors)(MessagesC.decode(u))

/**
 * Encodes a message to its JSON form (tagged parts, base64 bytes).
 *
 * @example
 * import { encodeMessage, textMessage } from 'chatfold/message'
 * JSON.stringify(encodeMessage(textMessage('user', 'Hi'))).includes('"type":"text"') // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodeMessage = (m: Message): MessageWire => MessageC.encode(m)

/**
 * Encodes a history to its JSON form.
 *
 * @example
 * import { decodeMessages, encodeMessages, textMessage } from 'chatfold/message'
 * const history = [textMessage('user', 'Hi')]
 * decodeMessages(JSON.parse(JSON.stringify(encodeMessages(history)))) // right(history)
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodeMessages = (ms: Messages): ReadonlyArray<MessageWire> => MessagesC.encode(ms)

/**
 * Parses JSON text into a history, throwing for callers who do not use fp-ts: a `SyntaxError`
 * for text that is not JSON, a `TypeError` listing every bad field otherwise.
 *
 * @example
 * import { parseMessages } from 'chatfold'
 * const history = parseMessages('[{"id":"1","role":"user","parts":[{"type":"text","data":{"text":"hi"}}]}]')
 *
 * @since 0.1.0
 * @category codecs
 */
export const parseMessages = (json: string): Messages => {
  const u = parseJsonText(json)
  if (E.isLeft(u)) throw new SyntaxError(`Cannot parse messages: ${u.left}`)
  const r = decodeMessages(u.right)
  if (E.isLeft(r)) throw new TypeError(`Cannot decode messages: ${formatDecodeFailure(prefixFailure('messages')(r.left))}`)
  return r.right
}

// --- constructors ---

/**
 * The fields a new message may be given; `id` is generated and `kind` is `normal` when absent.
 *
 * @since 0.1.0
 * @category constructors
 */
export type MessageFields = Omit<Message, 'id' | 'kind' | 'parts'> & {
  readonly id?: string
  readonly kind?: Kind
  readonly parts?: ReadonlyArray<Part>
}

/**
 * Makes a message, generating its id when none is given.
 *
 * @example
 * import { makeMessage, text } from 'chatfold'
 * makeMessage({ role: 'user', sender: 'alice', parts: [text('Describe this image:')] })
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMessage = (fields: MessageFields): Message => ({
  ...fields,
  id: fields.id ?? newId(),
  kind: fields.kind ?? 'normal',
  parts: fields.parts ?? [],
})

/**
 * Makes a message with one text part.
 *
 * @example
 * import { textMessage } from 'chatfold'
 * textMessage('system', 'You are a helpful assistant.')
 * textMessage('assistant', 'Go is a programming language.', { sender: 'bot' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const textMessage = (role: Role, content: string, fields: Omit<MessageFields, 'role' | 'parts'> = {}): Message =>
  makeMessage({ ...fields, role, parts: [{ type: 'text', text: content }] })
