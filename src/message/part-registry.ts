/**
 * The part registry and the codec of any part: built-in part types and custom ones added with
 * `registerPart`, decoded from and encoded to the type-tagged wire form
 * `{"type":"tool_call","data":{…}}`, singly or as JSON (`marshalParts`, `unmarshalParts`).
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { retarget } from '../internal/codec.ts'
import { type DecodeFailure, decodeIssue, failureFromErrors } from './failure.ts'
import {
  type BuiltinPart,
  FilePartC,
  FinishPartC,
  ImagePartC,
  type Part,
  type PartWire,
  ProviderPartC,
  ReasoningPartC,
  TextPartC,
  ToolCallPartC,
  ToolResultPartC,
} from './part-model.ts'
import { isFile, isFinish, isImage, isProviderPart, isReasoning, isText, isToolCall, isToolResult } from './part-make.ts'
import { isObject } from '../internal/object.ts'
import { parseJsonText } from '../internal/json.ts'

// --- registry ---

/**
 * What the registry keeps of one part type: its codec's check and decoder, and its encoder to the
 * flat form (with `type`), which takes a part of that type (the one `codecFor` found by its tag).
 */
type Entry = {
  readonly is: (u: unknown) => boolean
  readonly validate: (u: unknown, c: t.Context) => t.Validation<Part>
  /** the codec itself, named in the context of a failure */
  readonly decoder: t.Decoder<unknown, unknown>
  readonly encode: (p: Part) => { readonly type: string }
}

/** The entry of a built-in part type: `is` tells the parts of its tag (the lookup by tag makes it hold). */
const builtin = <A extends BuiltinPart, O extends { readonly type: string }>(codec: t.Type<A, O, unknown>, is: (p: Part) => p is A): Entry => ({
  is: codec.is,
  validate: (u, c) => codec.validate(u, c),
  decoder: codec,
  encode: (p) => (is(p) ? codec.encode(p) : p),
})

const builtins: ReadonlyMap<string, Entry> = new Map<string, Entry>([
  ['text', builtin(TextPartC, isText)],
  ['reasoning', builtin(ReasoningPartC, isReasoning)],
  ['image', builtin(ImagePartC, isImage)],
  ['file', builtin(FilePartC, isFile)],
  ['tool_call', builtin(ToolCallPartC, isToolCall)],
  ['tool_result', builtin(ToolResultPartC, isToolResult)],
  ['finish', builtin(FinishPartC, isFinish)],
  ['provider', builtin(ProviderPartC, isProviderPart)],
])

const custom = new Map<string, Entry>()

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
 * import { registerPart } from 'chatfold/message'
 * const AudioPartC = t.readonly(t.type({ type: t.literal('audio'), url: t.string, durationMs: t.number }))
 * const unregister = registerPart({ type: 'audio', codec: AudioPartC })
 *
 * @since 0.1.0
 * @category registry
 */
export const registerPart = <A extends { readonly type: string }, O extends { readonly type: string }>(
  definition: PartDefinition<A, O>,
): () => void => {
  const { type, codec } = definition
  if (builtins.has(type)) throw new TypeError(`Cannot register part type "${type}": it is built in`)
  if (custom.has(type)) throw new TypeError(`Cannot register part type "${type}": it is registered already`)
  const entry: Entry = {
    is: codec.is,
    // A registered type is a `CustomPart` by the caller's declaration (`CustomParts`), which the
    // compiler cannot tie to this codec: the one place where a decoded value is taken for a part.
    validate: (u, c) => codec.validate(u, c) as t.Validation<Part>,
    decoder: codec,
    encode: (p) => (codec.is(p) ? codec.encode(p) : p),
  }
  custom.set(type, entry)
  return () => {
    if (custom.get(type) === entry) custom.delete(type)
  }
}

/**
 * The tags a decoder accepts now: the built-in ones, then the registered ones.
 *
 * @example
 * import { partTypes } from 'chatfold/message'
 * partTypes().includes('tool_call') // true
 *
 * @since 0.1.0
 * @category registry
 */
export const partTypes = (): ReadonlyArray<string> => [...builtins.keys(), ...custom.keys()]

const codecFor = (type: string): Entry | undefined => builtins.get(type) ?? custom.get(type)

const tagCodec = (): t.Decoder<unknown, unknown> =>
  t.keyof(Object.fromEntries(partTypes().map((k) => [k, null])), partTypes().map((k) => JSON.stringify(k)).join(' | '))

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
 * import { PartC, text } from 'chatfold/message'
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
      return codec.validate(data, t.appendContext(c, 'data', codec.decoder, data))
    }
    return codec.validate(u, retarget(c, codec.decoder))
  },
  (p) => {
    const codec = codecFor(p.type)
    const { type, ...data } = codec === undefined ? p : codec.encode(p)
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
 * import { decodePart } from 'chatfold/message'
 * decodePart({ type: 'text', data: { text: 'hi' } }) // right({ type: 'text', text: 'hi' })
 *
 * @since 0.1.0
 * @category codecs
 */
export const decodePart = (u: unknown): E.Either<DecodeFailure, Part> => E.mapLeft(failureFromErrors)(PartC.decode(u))

/**
 * Encodes a part to its tagged wire form.
 *
 * @example
 * import { encodePart, text } from 'chatfold/message'
 * encodePart(text('hi')) // { type: 'text', data: { text: 'hi' } }
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodePart = (p: Part): PartWire => PartC.encode(p)

/**
 * Serialises parts to JSON text, each part in its type-tagged wire form `{"type":"…","data":{…}}`
 * (what `encodePart` gives; image and file bytes as base64, custom parts through their registered
 * codec). `unmarshalParts` reads it back.
 *
 * @example
 * import { marshalParts, text, toolCall } from 'chatfold/message'
 * marshalParts([text('Listing.'), toolCall({ id: 'c1', name: 'ls', arguments: '{}' })])
 * // '[{"type":"text","data":{"text":"Listing."}},{"type":"tool_call","data":{"id":"c1","name":"ls","arguments":"{}","status":"pending"}}]'
 *
 * @since 0.1.0
 * @category codecs
 */
export const marshalParts = (parts: ReadonlyArray<Part>): string => JSON.stringify(PartsC.encode(parts))

/**
 * Parses the JSON text that `marshalParts` writes back into parts (the flat form `{"type":"text",
 * "text":"…"}` is read too). Text that is not JSON and a bad part are both a `Left` naming where;
 * it never throws.
 *
 * @example
 * import { unmarshalParts } from 'chatfold/message'
 * unmarshalParts('[{"type":"text","data":{"text":"hi"}}]') // right([{ type: 'text', text: 'hi' }])
 * unmarshalParts('[{"type":"txt","data":{}}]')._tag // 'Left'
 *
 * @since 0.1.0
 * @category codecs
 */
export const unmarshalParts = (json: string): E.Either<DecodeFailure, ReadonlyArray<Part>> => {
  const u = parseJsonText(json)
  if (E.isLeft(u)) return E.left(decodeIssue('', 'JSON', u.left))
  return E.mapLeft(failureFromErrors)(PartsC.decode(u.right))
}

// --- refinements ---

/**
 * Whether a part is one of the built-in types (rather than a registered custom one).
 *
 * @since 0.1.0
 * @category refinements
 */
export const isBuiltinPart = (p: Part): p is BuiltinPart => builtins.has(p.type)
