/**
 * `ChatInput`: the event payload of one chat message from the user or the assistant,
 * its codec, validation with an error for every bad field, and helpers (`formatInput`,
 * `affectedEntities`). Field names are the store's wire names (snake_case).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { newId, nowIso } from '../internal/id.ts'
import { JsonRecordC } from '../internal/json.ts'
import { pushAll } from '../internal/array.ts'
import { type DecodeFailure, type DecodeIssue, failureFromErrors } from '../message/failure.ts'
import { IsoTimestampC } from '../message/message.ts'
import { AudioBlockC, type ChatContent, ChatContentC, type ContentBlock, ImageBlockC, TextBlockC, VideoBlockC } from './content.ts'
import { isObject } from '../internal/object.ts'

// --- content ---

const issues = (r: t.Validation<unknown>, path: string): ReadonlyArray<DecodeIssue> =>
  E.isLeft(r) ? failureFromErrors(r.left).map((i) => ({ ...i, path: i.path === '' ? path : `${path}.${i.path}` })) : []

const blockTypes = ['text', 'image', 'audio', 'video'] as const
const mediaCodecs = { image: ImageBlockC, audio: AudioBlockC, video: VideoBlockC } as const

const blockFields: ReadonlyArray<string> = ['type', 'text', 'source', 'url', 'data', 'media_type']

/** Whether a block has no field the codecs do not know (io-ts's `exact(…).is` does not check that). */
const onlyKnownFields = (b: Readonly<Record<string, unknown>>): boolean => {
  for (const k in b) if (!blockFields.includes(k)) return false
  return true
}

/** The codec of a block by its `type` and `source`, or the issue naming the bad one. */
const blockCodec = (u: Readonly<Record<string, unknown>>, path: string): E.Either<DecodeIssue, t.Decoder<unknown, ContentBlock>> => {
  const type = u['type']
  if (type === 'text') return E.right(TextBlockC)
  if (type !== 'image' && type !== 'audio' && type !== 'video') {
    return E.left({ path: `${path}.type`, expected: blockTypes.map((b) => JSON.stringify(b)).join(' | '), actual: type })
  }
  const source = u['source']
  const [byUrl, byData] = mediaCodecs[type].types
  if (source === 'url') return E.right(byUrl)
  if (source === 'base64') return E.right(byData)
  return E.left({ path: `${path}.source`, expected: '"url" | "base64"', actual: source })
}

/**
 * Decodes one content block, naming the exact bad field (`[1].url`), never the whole union. A
 * block with only known fields is returned as it is; unknown fields are dropped.
 */
const decodeBlock = (u: unknown, path: string): E.Either<ReadonlyArray<DecodeIssue>, ContentBlock> => {
  if (!isObject(u)) return E.left([{ path, expected: 'a content block object', actual: u }])
  const codec = blockCodec(u, path)
  if (E.isLeft(codec)) return E.left([codec.left])
  const r = codec.right.decode(u)
  if (E.isLeft(r)) return E.left(issues(r, path))
  return E.right(onlyKnownFields(u) ? (u as ContentBlock) : r.right)
}

/**
 * Decodes content in one walk: a non-empty string, or a non-empty list of well-formed blocks;
 * paths are relative (`[1].url`). Content whose blocks have only known fields is returned as it is.
 */
const decodeContent = (u: unknown): E.Either<ReadonlyArray<DecodeIssue>, ChatContent> => {
  if (typeof u === 'string') return u === '' ? E.left([{ path: '', expected: 'non-empty text', actual: u }]) : E.right(u)
  if (!Array.isArray(u)) return E.left([{ path: '', expected: 'a string or a list of content blocks', actual: u }])
  if (u.length === 0) return E.left([{ path: '', expected: 'at least one content block', actual: u }])
  const out: DecodeIssue[] = []
  const blocks: ContentBlock[] = []
  let same = true
  for (let i = 0; i < u.length; i++) {
    // A hole ends the walk: a sparse array (`new Array(2 ** 32 - 1)`) is refused at its first hole, not walked hole by hole.
    if (!(i in u)) return E.left([...out, { path: `[${i}]`, expected: 'a content block (the list has a hole here)', actual: undefined }])
    const b = decodeBlock(u[i], `[${i}]`)
    if (E.isLeft(b)) pushAll(out, b.left)
    else {
      blocks.push(b.right)
      same = same && b.right === u[i]
    }
  }
  return out.length > 0 ? E.left(out) : E.right(same ? (u as ChatContent) : blocks)
}

/** Turns issues with relative paths into io-ts errors under context `c`, so that paths render after the field. */
const toErrors = (c: t.Context, found: ReadonlyArray<DecodeIssue>): t.Errors =>
  found.map((i) => {
    let ctx = c
    for (const k of i.path.match(/\.[^.[]+|\[[^\]]+\]/g) ?? [])
      ctx = t.appendContext(ctx, k.startsWith('.') ? k.slice(1) : k.slice(1, -1), t.unknown, undefined)
    return { value: i.actual, context: ctx, message: i.expected }
  })

/**
 * Chat content as an input must carry it: a non-empty string, or a non-empty list of blocks,
 * each checked field by field, so that a failure names the exact bad field (`content[1].url`)
 * rather than every member of the block union.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatInputContentC: t.Type<ChatContent, ChatContent, unknown> = new t.Type<ChatContent, ChatContent, unknown>(
  'ChatInputContent',
  (u): u is ChatContent => E.isRight(decodeContent(u)),
  (u, c) => {
    const r = decodeContent(u)
    return E.isLeft(r) ? t.failures(toErrors(c, r.left)) : t.success(r.right)
  },
  ChatContentC.encode,
)

// --- codecs ---

/** Longest identifier (input, message or conversation id) a store accepts. */
const MAX_ID_LENGTH = 256

const isChatId = (u: unknown): u is string =>
  // deno-lint-ignore no-control-regex -- an id holds no control character: the class names them
  typeof u === 'string' && u.length > 0 && u.length <= MAX_ID_LENGTH && !/[\u0000-\u001f\u007f]/.test(u)

/**
 * An identifier of an input, a message or a conversation: a non-empty string of at most 256
 * characters without control characters.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatIdC: t.Type<string, string, unknown> = new t.Type<string, string, unknown>(
  'ChatId',
  isChatId,
  (u, c) => (isChatId(u) ? t.success(u) : t.failure(u, c, `a non-empty id of at most ${MAX_ID_LENGTH} characters without control characters`)),
  t.identity,
)

/**
 * The two roles a chat message can have.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatRoleC: t.KeyofC<{ user: null; assistant: null }> = t.keyof({ user: null, assistant: null }, 'ChatRole')

/** @since 0.1.0 @category model */
export type ChatRole = t.TypeOf<typeof ChatRoleC>

/**
 * The codec of a chat input. Decoding drops unknown fields; use
 * `validateInput` to have them reported.
 *
 * @example
 * import { ChatInputC } from 'chatfold/store'
 * ChatInputC.is({ modality_type: 'chat', timestamp: '2024-03-15T10:30:00Z', input_id: 'in-1', role: 'user', content: 'Hi' }) // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const ChatInputC: t.ReadonlyC<
  t.IntersectionC<
    [
      t.ExactC<
        t.TypeC<
          {
            modality_type: t.LiteralC<'chat'>
            timestamp: typeof IsoTimestampC
            input_id: typeof ChatIdC
            role: typeof ChatRoleC
            content: typeof ChatInputContentC
          }
        >
      >,
      t.ExactC<t.PartialC<{ message_id: typeof ChatIdC; conversation_id: typeof ChatIdC; metadata: typeof JsonRecordC }>>,
    ]
  >
> = t.readonly(
  t.intersection([
    t.exact(t.type({ modality_type: t.literal('chat'), timestamp: IsoTimestampC, input_id: ChatIdC, role: ChatRoleC, content: ChatInputContentC })),
    t.exact(t.partial({ message_id: ChatIdC, conversation_id: ChatIdC, metadata: JsonRecordC })),
  ]),
  'ChatInput',
)

/**
 * A new chat message from the user or the assistant: when it was sent (simulator time), its
 * input id, its role, its content (text, or typed blocks), and optionally an explicit message id,
 * a conversation id and metadata.
 *
 * @since 0.1.0
 * @category model
 */
export type ChatInput = t.TypeOf<typeof ChatInputC>

declare const validInput: unique symbol

/**
 * A chat input that `validateInput` has checked (and only it makes one): a function that takes a
 * `ValidInput` trusts it and checks nothing again. Every path into a store decodes what it is
 * sent once, where it enters, and hands on a `ValidInput`.
 *
 * @since 0.1.0
 * @category model
 */
export type ValidInput = ChatInput & { readonly [validInput]: true }

/** Marks an input the checks below have passed. */
const valid = (input: ChatInput): ValidInput => input as ValidInput

/** The fields of a chat input: the required ones, then the optional ones. */
const chatInputFields: ReadonlyArray<string> = [
  'modality_type',
  'timestamp',
  'input_id',
  'role',
  'content',
  'message_id',
  'conversation_id',
  'metadata',
]

// --- validation ---

/** An optional field: absent, present as `undefined` (as the codec's `t.partial` accepts it), or valid. */
const optional = (u: Readonly<Record<string, unknown>>, k: string, is: (x: unknown) => boolean): boolean =>
  !Object.prototype.hasOwnProperty.call(u, k) || u[k] === undefined || is(u[k])

/** Whether content is valid and has no unknown field: the input can keep it exactly as sent. */
const hasContentAsSent = (content: unknown): boolean => {
  const r = decodeContent(content)
  return E.isRight(r) && r.right === content
}

/**
 * Whether `u` is a valid chat input with no unknown field: the codec's checks, written out, so
 * that valid inputs (the common case) skip building a decoded copy; failures go through the codec
 * for their paths. A valid input is returned as it is. test/store/input.prop.test.ts holds the two
 * to one meaning: this accepts exactly what the codec takes unchanged.
 */
const isValidInput = (u: Readonly<Record<string, unknown>>): u is ChatInput => {
  let fields = 0
  for (const k in u) {
    if (!Object.prototype.hasOwnProperty.call(u, k)) continue
    if (!chatInputFields.includes(k)) return false
    fields++
  }
  return (
    fields === Object.keys(u).length &&
    u['modality_type'] === 'chat' &&
    IsoTimestampC.is(u['timestamp']) &&
    isChatId(u['input_id']) &&
    (u['role'] === 'user' || u['role'] === 'assistant') &&
    hasContentAsSent(u['content']) &&
    optional(u, 'message_id', isChatId) &&
    optional(u, 'conversation_id', isChatId) &&
    optional(u, 'metadata', JsonRecordC.is)
  )
}

/**
 * Validates an untrusted chat input: role, content structure, ids,
 * timestamp and metadata, reporting every bad field by path, unknown fields included
 * (`role: expected "user" | "assistant", got "bot"`, `content[1].type: …`). Content must say
 * something: an empty string or an empty block list is rejected. Unknown fields of content
 * blocks are dropped (the valid input holds only what the store can serve and save). The result
 * is a `ValidInput`: what the store's inner steps take, trusting it.
 *
 * @example
 * import { validateInput } from 'chatfold/store'
 * validateInput({ modality_type: 'chat', timestamp: '2024-03-15T10:30:00Z', input_id: 'in-1', role: 'user', content: "What's the weather?" })
 * // right({ … })
 *
 * @since 0.1.0
 * @category codecs
 */
export const validateInput = (u: unknown): E.Either<DecodeFailure, ValidInput> => {
  if (!isObject(u)) return E.left([{ path: '', expected: 'a chat input object', actual: u }])
  if (isValidInput(u)) return E.right(valid(u))
  const out: DecodeIssue[] = []
  const r = ChatInputC.decode(u)
  if (E.isLeft(r)) { for (const i of failureFromErrors(r.left)) out.push(i) }
  for (const k of Object.keys(u)) {
    if (!chatInputFields.includes(k)) out.push({ path: k, expected: `no such field (a chat input has ${chatInputFields.join(', ')})`, actual: u[k] })
  }
  if (out.length > 0) return E.left(out)
  return E.isLeft(r) ? E.left(failureFromErrors(r.left)) : E.right(valid(r.right))
}

// --- constructors ---

/**
 * The fields of a new chat input: `input_id` is generated and `timestamp` is now when absent.
 *
 * @since 0.1.0
 * @category constructors
 */
export type ChatInputFields = Omit<ChatInput, 'modality_type' | 'input_id' | 'timestamp'> & {
  readonly input_id?: string
  readonly timestamp?: string
}

/**
 * Makes a chat input, generating its input id and taking the current time when they are not
 * given. It does not validate: `applyInput` does.
 *
 * @example
 * import { makeChatInput } from 'chatfold/store'
 * makeChatInput({ role: 'user', content: "What's the weather?", conversation_id: 'support-42' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeChatInput = (fields: ChatInputFields): ChatInput => ({
  ...fields,
  modality_type: 'chat',
  input_id: fields.input_id ?? newId(),
  timestamp: fields.timestamp ?? nowIso(),
})

// --- helpers ---

/**
 * The entity an input without `conversation_id` is said to affect.
 *
 * @since 0.1.0
 * @category helpers
 */
export const DEFAULT_AFFECTED_ENTITY = 'default_conversation'

/**
 * The entities an input touches: its conversation id, or
 * `"default_conversation"` when it has none.
 *
 * @example
 * import { affectedEntities, makeChatInput } from 'chatfold/store'
 * affectedEntities(makeChatInput({ role: 'user', content: 'Hi' })) // ['default_conversation']
 *
 * @since 0.1.0
 * @category helpers
 */
export const affectedEntities = (input: ChatInput): ReadonlyArray<string> => [input.conversation_id ?? DEFAULT_AFFECTED_ENTITY]

const SUMMARY_LENGTH = 60

/** The text of content, with a `[image]`, `[audio]` or `[video]` marker for each media block. */
const contentText = (content: ChatContent): string =>
  typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ')

/**
 * A one-line, human-readable summary: the role and the quoted text, cut at
 * 60 characters, with media blocks shown as `[image]`, `[audio]`, `[video]`.
 *
 * @example
 * import { formatInput, makeChatInput } from 'chatfold/store'
 * formatInput(makeChatInput({ role: 'user', content: "What's the weather?" })) // "User: 'What's the weather?'"
 *
 * @since 0.1.0
 * @category helpers
 */
export const formatInput = (input: ChatInput): string => {
  const who = input.role === 'user' ? 'User' : 'Assistant'
  const flat = contentText(input.content).replace(/\s+/g, ' ').trim()
  const chars = Array.from(flat)
  const shown = chars.length > SUMMARY_LENGTH ? `${chars.slice(0, SUMMARY_LENGTH - 1).join('')}…` : flat
  return `${who}: '${shown}'`
}
