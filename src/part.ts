/**
 * Content parts: the typed blocks a message is made of (text, reasoning, image, file, tool call,
 * tool result, finish), their codecs, and an open registry for custom part types.
 *
 * In memory an image or file holds its bytes as a `Uint8Array`; on the wire (JSON) the bytes are
 * base64. A part's wire form is type-tagged: `{"type":"tool_call","data":{…}}`.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { decodeBase64, encodeBase64 } from './internal/base64.ts'
import { retarget, withDefault } from './internal/codec.ts'
import { type DecodeFailure, decodeIssue, failureFromErrors } from './failure.ts'

// --- codec helpers ---

/**
 * The codec type of {@link struct}: a readonly intersection of exact required and optional fields.
 *
 * @since 0.2.0
 * @category codecs
 */
export type StructC<R extends t.Props, P extends t.Props> = t.ReadonlyC<t.IntersectionC<[t.ExactC<t.TypeC<R>>, t.ExactC<t.PartialC<P>>]>>

/** An exact, readonly object codec with required and optional fields; unknown keys are dropped. */
const struct = <R extends t.Props, P extends t.Props>(name: string, required: R, optional: P): StructC<R, P> =>
  t.readonly(t.intersection([t.exact(t.type(required)), t.exact(t.partial(optional))]), name)

/** Adds a whole-value check to a codec. */
const refine = <A, O>(codec: t.Type<A, O, unknown>, ok: (a: A) => boolean, expected: string): t.Type<A, O, unknown> =>
  new t.Type<A, O, unknown>(
    codec.name,
    (u): u is A => codec.is(u) && ok(u),
    (u, c) => {
      const r = codec.validate(u, retarget(c, codec))
      return E.isRight(r) && !ok(r.right) ? t.failure(u, c, expected) : r
    },
    codec.encode,
  )

/**
 * Bytes in memory, base64 on the wire. Decoding also accepts a `Uint8Array` (a structured clone).
 *
 * @since 0.1.0
 * @category codecs
 */
export const BytesC: t.Type<Uint8Array, string, unknown> = new t.Type<Uint8Array, string, unknown>(
  'Base64Bytes',
  (u): u is Uint8Array => u instanceof Uint8Array,
  (u, c) => {
    if (u instanceof Uint8Array) return t.success(u)
    if (typeof u !== 'string') return t.failure(u, c, 'base64 string')
    const bytes = decodeBase64(u)
    return bytes === undefined ? t.failure(u, c, 'base64 string') : t.success(bytes)
  },
  encodeBase64,
)

// --- codecs ---

/**
 * Plain text.
 *
 * @since 0.1.0
 * @category codecs
 */
export const TextPartC: StructC<{ type: t.LiteralC<'text'>; text: t.StringC }, {}> = struct('TextPart', { type: t.literal('text'), text: t.string }, {})

/**
 * Reasoning ("thinking") with the provider's opaque signature, kept unmodified for round trips.
 * `redacted` marks encrypted reasoning whose `text` is the provider's opaque payload.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ReasoningPartC: StructC<{ type: t.LiteralC<'reasoning'>; text: t.StringC }, { signature: t.StringC; redacted: t.BooleanC }> = struct(
  'ReasoningPart',
  { type: t.literal('reasoning'), text: t.string },
  { signature: t.string, redacted: t.boolean },
)

/**
 * An image by URL or by bytes (with a media type such as `image/png`).
 *
 * @since 0.1.0
 * @category codecs
 */
type ImagePartFields = StructC<{ type: t.LiteralC<'image'> }, { url: t.StringC; data: typeof BytesC; mediaType: t.StringC }>
export const ImagePartC: t.Type<t.TypeOf<ImagePartFields>, t.OutputOf<ImagePartFields>, unknown> = refine(
  struct('ImagePart', { type: t.literal('image') }, { url: t.string, data: BytesC, mediaType: t.string }),
  (p) => p.url !== undefined || p.data !== undefined,
  'an image with a url or data',
)

/**
 * Any other media (audio, video, PDF, …) by URL or bytes, with its media type.
 *
 * @since 0.1.0
 * @category codecs
 */
type FilePartFields = StructC<{ type: t.LiteralC<'file'>; mediaType: t.StringC }, { url: t.StringC; data: typeof BytesC; filename: t.StringC }>
export const FilePartC: t.Type<t.TypeOf<FilePartFields>, t.OutputOf<FilePartFields>, unknown> = refine(
  struct('FilePart', { type: t.literal('file'), mediaType: t.string }, { url: t.string, data: BytesC, filename: t.string }),
  (p) => p.url !== undefined || p.data !== undefined,
  'a file with a url or data',
)

/**
 * The lifecycle of a tool call: streamed (`pending`), executing (`running`), done (`complete`, `error`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolCallStatusC: t.KeyofC<{ pending: null; running: null; complete: null; error: null }> = t.keyof({ pending: null, running: null, complete: null, error: null }, 'ToolCallStatus')

/**
 * The assistant's request to run a tool. `arguments` is the raw JSON text, kept byte for byte.
 * On the wire a missing `status` means `complete`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolCallPartC: StructC<
  { type: t.LiteralC<'tool_call'>; id: t.StringC; name: t.StringC; arguments: t.StringC; status: t.Type<t.TypeOf<typeof ToolCallStatusC>, t.OutputOf<typeof ToolCallStatusC>, unknown> },
  {}
> = struct(
  'ToolCallPart',
  {
    type: t.literal('tool_call'),
    id: t.string,
    name: t.string,
    arguments: t.string,
    status: withDefault(ToolCallStatusC, 'complete'),
  },
  {},
)

/**
 * The output of a tool run, linked to its call by `toolCallId`. On the wire a missing `isError` means `false`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolResultPartC: StructC<
  { type: t.LiteralC<'tool_result'>; toolCallId: t.StringC; content: t.StringC; isError: t.Type<boolean, boolean, unknown> },
  { name: t.StringC }
> = struct(
  'ToolResultPart',
  { type: t.literal('tool_result'), toolCallId: t.string, content: t.string, isError: withDefault(t.boolean, false) },
  { name: t.string },
)

/**
 * The end of an assistant turn and why (`end_turn`, `tool_use`, `max_tokens`, …).
 *
 * @since 0.1.0
 * @category codecs
 */
export const FinishPartC: StructC<{ type: t.LiteralC<'finish'>; reason: t.StringC }, {}> = struct('FinishPart', { type: t.literal('finish'), reason: t.string }, {})

// --- model ---

/** @since 0.1.0 @category model */
export type TextPart = t.TypeOf<typeof TextPartC>
/** @since 0.1.0 @category model */
export type ReasoningPart = t.TypeOf<typeof ReasoningPartC>
/** @since 0.1.0 @category model */
export type ImagePart = t.TypeOf<typeof ImagePartC>
/** @since 0.1.0 @category model */
export type FilePart = t.TypeOf<typeof FilePartC>
/** @since 0.1.0 @category model */
export type ToolCallStatus = t.TypeOf<typeof ToolCallStatusC>
/** @since 0.1.0 @category model */
export type ToolCallPart = t.TypeOf<typeof ToolCallPartC>
/** @since 0.1.0 @category model */
export type ToolResultPart = t.TypeOf<typeof ToolResultPartC>
/** @since 0.1.0 @category model */
export type FinishPart = t.TypeOf<typeof FinishPartC>

/**
 * The parts chatfold knows natively.
 *
 * @since 0.1.0
 * @category model
 */
export type BuiltinPart = TextPart | ReasoningPart | ImagePart | FilePart | ToolCallPart | ToolResultPart | FinishPart

/**
 * Custom part types, added by declaration merging next to `registerPart`:
 *
 * ```ts
 * declare module 'chatfold' { interface CustomParts { audio: AudioPart } }
 * ```
 *
 * @since 0.1.0
 * @category model
 */
// biome-ignore lint: an empty interface is the extension point
export interface CustomParts {}

/**
 * A registered custom part (never, until `CustomParts` is augmented).
 *
 * @since 0.1.0
 * @category model
 */
export type CustomPart = CustomParts[keyof CustomParts]

/**
 * One block of a message.
 *
 * @since 0.1.0
 * @category model
 */
export type Part = BuiltinPart | CustomPart

/**
 * A part's wire form: its type tag and its fields, with bytes as base64.
 *
 * @since 0.1.0
 * @category model
 */
export type PartWire = { readonly type: string; readonly data: Readonly<Record<string, unknown>> }

// --- registry ---

/** A codec for one part type: decodes the flat form (with `type`), encodes to the flat form. */
type AnyPartCodec = t.Type<{ readonly type: string }, { readonly type: string }, unknown>

const builtins: ReadonlyMap<string, AnyPartCodec> = new Map<string, AnyPartCodec>([
  ['text', TextPartC as unknown as AnyPartCodec],
  ['reasoning', ReasoningPartC as unknown as AnyPartCodec],
  ['image', ImagePartC as unknown as AnyPartCodec],
  ['file', FilePartC as unknown as AnyPartCodec],
  ['tool_call', ToolCallPartC as unknown as AnyPartCodec],
  ['tool_result', ToolResultPartC as unknown as AnyPartCodec],
  ['finish', FinishPartC as unknown as AnyPartCodec],
])

const custom = new Map<string, AnyPartCodec>()

/**
 * How a custom part type is decoded and encoded: its `type` tag and a codec for the whole part
 * (including its `type` field), whose output must be JSON.
 *
 * @since 0.1.0
 * @category registry
 */
export type PartDefinition<A extends { readonly type: string }, O extends { readonly type: string }> = {
  readonly type: A['type']
  readonly codec: t.Type<A, O, unknown>
}

/**
 * Registers a custom part type, so that it decodes, encodes and round-trips like a built-in one.
 * Returns a function that unregisters it. Registering a built-in tag, or a tag twice, is a
 * programming error and throws a `TypeError`.
 *
 * @example
 * import * as t from 'io-ts'
 * import { registerPart } from 'chatfold'
 * const AudioPartC = t.readonly(t.type({ type: t.literal('audio'), url: t.string, durationMs: t.number }))
 * const unregister = registerPart({ type: 'audio', codec: AudioPartC })
 *
 * @since 0.1.0
 * @category registry
 */
export const registerPart = <A extends { readonly type: string }, O extends { readonly type: string }>(
  definition: PartDefinition<A, O>,
): (() => void) => {
  const { type, codec } = definition
  if (builtins.has(type)) throw new TypeError(`Cannot register part type "${type}": it is built in`)
  if (custom.has(type)) throw new TypeError(`Cannot register part type "${type}": it is registered already`)
  custom.set(type, codec as unknown as AnyPartCodec)
  return () => {
    if (custom.get(type) === (codec as unknown)) custom.delete(type)
  }
}

/**
 * The tags a decoder accepts now: the built-in ones, then the registered ones.
 *
 * @example
 * import { partTypes } from 'chatfold'
 * partTypes().includes('tool_call') // true
 *
 * @since 0.1.0
 * @category registry
 */
export const partTypes = (): ReadonlyArray<string> => [...builtins.keys(), ...custom.keys()]

const codecFor = (type: string): AnyPartCodec | undefined => builtins.get(type) ?? custom.get(type)

const tagCodec = (): t.Decoder<unknown, unknown> =>
  t.keyof(Object.fromEntries(partTypes().map((k) => [k, null])), partTypes().map((k) => JSON.stringify(k)).join(' | '))

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** `{type, data: {...}}` with nothing else: the tagged wire form. */
const isTagged = (u: Record<string, unknown>): boolean => {
  const keys = Object.keys(u)
  return keys.length === 2 && 'type' in u && isObject(u['data']) && !(u['data'] instanceof Uint8Array)
}

// --- codecs ---

/**
 * The codec of any part, built-in or registered. It decodes the tagged wire form
 * `{"type":"text","data":{"text":"hi"}}` and also the flat form `{"type":"text","text":"hi"}`;
 * it encodes to the tagged form. An unknown `type` is reported at `.type` with the accepted tags.
 *
 * @example
 * import { PartC, text } from 'chatfold'
 * PartC.encode(text('hi')) // { type: 'text', data: { text: 'hi' } }
 *
 * @since 0.1.0
 * @category codecs
 */
export const PartC: t.Type<Part, PartWire, unknown> = new t.Type<Part, PartWire, unknown>(
  'Part',
  (u): u is Part => isObject(u) && typeof u['type'] === 'string' && (codecFor(u['type'])?.is(u) ?? false),
  (u, c) => {
    if (!isObject(u)) return t.failure(u, c, 'a part object')
    const tag = u['type']
    const codec = typeof tag === 'string' ? codecFor(tag) : undefined
    if (codec === undefined) {
      const tags = tagCodec()
      return t.failure<Part>(tag, t.appendContext(c, 'type', tags, tag), tags.name)
    }
    // The context's last entry names the codec that validates below it, so that failure paths
    // skip the positions io-ts adds for the codec's own intersection members.
    if (isTagged(u)) {
      const data = { ...(u['data'] as Record<string, unknown>), type: tag }
      return codec.validate(data, t.appendContext(c, 'data', codec, data)) as t.Validation<Part>
    }
    return codec.validate(u, retarget(c, codec)) as t.Validation<Part>
  },
  (p) => {
    const codec = codecFor(p.type)
    const { type, ...data } = (codec === undefined ? p : codec.encode(p)) as { readonly type: string }
    return { type, data }
  },
)

/**
 * The codec of a list of parts.
 *
 * @since 0.1.0
 * @category codecs
 */
export const PartsC: t.ReadonlyArrayC<typeof PartC> = t.readonlyArray(PartC, 'Parts')

// --- decoding ---

/**
 * Decodes an untrusted value into a part.
 *
 * @example
 * import { decodePart } from 'chatfold'
 * decodePart({ type: 'text', data: { text: 'hi' } }) // right({ type: 'text', text: 'hi' })
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodePart = (u: unknown): E.Either<DecodeFailure, Part> => E.mapLeft(failureFromErrors)(PartC.decode(u))

/**
 * Encodes a part to its tagged wire form.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodePart = (p: Part): PartWire => PartC.encode(p)

/**
 * Serialises parts to JSON, each as `{"type":"…","data":{…}}` (seed 004 `MarshalParts`).
 *
 * @example
 * import { marshalParts, text } from 'chatfold'
 * marshalParts([text('hi')]) // '[{"type":"text","data":{"text":"hi"}}]'
 *
 * @since 0.1.0
 * @category codecs
 */
export const marshalParts = (parts: ReadonlyArray<Part>): string => JSON.stringify(PartsC.encode(parts))

/**
 * Parses the JSON that `marshalParts` writes back into parts (seed 004 `UnmarshalParts`).
 * Bad JSON and bad parts are both a `Left`; it never throws.
 *
 * @example
 * import { unmarshalParts } from 'chatfold'
 * unmarshalParts('[{"type":"finish","data":{"reason":"end_turn"}}]') // right([{ type: 'finish', reason: 'end_turn' }])
 *
 * @since 0.1.0
 * @category codecs
 */
export const unmarshalParts = (json: string): E.Either<DecodeFailure, ReadonlyArray<Part>> => {
  let u: unknown
  try {
    u = JSON.parse(json)
  } catch (e) {
    return E.left(decodeIssue('', 'JSON', e instanceof Error ? e.message : String(e)))
  }
  return E.mapLeft(failureFromErrors)(PartsC.decode(u))
}

// --- constructors ---

/**
 * A text part.
 *
 * @example
 * import { text } from 'chatfold'
 * text('hello') // { type: 'text', text: 'hello' }
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (value: string): TextPart => ({ type: 'text', text: value })

/**
 * A reasoning part, with the provider's signature when there is one.
 *
 * @example
 * import { reasoning } from 'chatfold'
 * reasoning('Let me think…', { signature: 'EqQBCkYIBxgC' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const reasoning = (value: string, extra: { readonly signature?: string; readonly redacted?: boolean } = {}): ReasoningPart => ({
  type: 'reasoning',
  text: value,
  ...extra,
})

/**
 * An image by URL or bytes.
 *
 * @example
 * import { image } from 'chatfold'
 * image({ url: 'https://example.com/cat.png', mediaType: 'image/png' })
 * image({ data: new Uint8Array([137, 80, 78, 71]), mediaType: 'image/png' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const image = (
  source: { readonly url: string; readonly mediaType?: string } | { readonly data: Uint8Array; readonly mediaType?: string },
): ImagePart => ({ type: 'image', ...source })

/**
 * A file (audio, video, document) by URL or bytes, with its media type.
 *
 * @example
 * import { file } from 'chatfold'
 * file({ url: 'https://example.com/a.mp3', mediaType: 'audio/mpeg' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const file = (
  source: ({ readonly url: string } | { readonly data: Uint8Array }) & { readonly mediaType: string; readonly filename?: string },
): FilePart => ({ type: 'file', ...source })

/**
 * A tool call. `arguments` is raw JSON text (default `'{}'`); `status` defaults to `'pending'`,
 * since a call is usually made while it streams.
 *
 * @example
 * import { toolCall } from 'chatfold'
 * toolCall({ id: 'call_1', name: 'search', arguments: '{"q":"golang"}', status: 'complete' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCall = (fields: {
  readonly id: string
  readonly name: string
  readonly arguments?: string
  readonly status?: ToolCallStatus
}): ToolCallPart => ({
  type: 'tool_call',
  id: fields.id,
  name: fields.name,
  arguments: fields.arguments ?? '{}',
  status: fields.status ?? 'pending',
})

/**
 * A tool result for the call `toolCallId`.
 *
 * @example
 * import { toolResult } from 'chatfold'
 * toolResult({ toolCallId: 'call_1', name: 'search', content: 'Go is a statically typed language' })
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolResult = (fields: {
  readonly toolCallId: string
  readonly content: string
  readonly name?: string
  readonly isError?: boolean
}): ToolResultPart => ({
  type: 'tool_result',
  toolCallId: fields.toolCallId,
  content: fields.content,
  isError: fields.isError ?? false,
  ...(fields.name === undefined ? {} : { name: fields.name }),
})

/**
 * A finish marker with the stop reason.
 *
 * @example
 * import { finish } from 'chatfold'
 * finish('end_turn')
 *
 * @since 0.1.0
 * @category constructors
 */
export const finish = (reason: string): FinishPart => ({ type: 'finish', reason })

// --- refinements ---

/**
 * The kind string of a part (seed 000 `PartKind`): its `type` tag.
 *
 * @example
 * import { partKind, text } from 'chatfold'
 * partKind(text('x')) // 'text'
 *
 * @since 0.1.0
 * @category refinements
 */
export const partKind = (p: Part): string => p.type

/** @since 0.1.0 @category refinements */
export const isText = (p: Part): p is TextPart => p.type === 'text'
/** @since 0.1.0 @category refinements */
export const isReasoning = (p: Part): p is ReasoningPart => p.type === 'reasoning'
/** @since 0.1.0 @category refinements */
export const isImage = (p: Part): p is ImagePart => p.type === 'image'
/** @since 0.1.0 @category refinements */
export const isFile = (p: Part): p is FilePart => p.type === 'file'
/** @since 0.1.0 @category refinements */
export const isToolCall = (p: Part): p is ToolCallPart => p.type === 'tool_call'
/** @since 0.1.0 @category refinements */
export const isToolResult = (p: Part): p is ToolResultPart => p.type === 'tool_result'
/** @since 0.1.0 @category refinements */
export const isFinish = (p: Part): p is FinishPart => p.type === 'finish'

/**
 * Whether a part is one of the built-in types (rather than a registered custom one).
 *
 * @example
 * import { isBuiltinPart, text } from 'chatfold'
 * isBuiltinPart(text('x')) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isBuiltinPart = (p: Part): p is BuiltinPart => builtins.has(p.type)

/**
 * Whether a tool call has finished (seed 004 `Finished`): complete or failed.
 *
 * @example
 * import { isFinished, toolCall } from 'chatfold'
 * isFinished(toolCall({ id: '1', name: 'ls' })) // false: pending
 *
 * @since 0.1.0
 * @category refinements
 */
export const isFinished = (call: ToolCallPart): boolean => call.status === 'complete' || call.status === 'error'
