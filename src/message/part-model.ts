/**
 * The part model: the codecs of the built-in parts (text, reasoning, image, file, tool call, tool
 * result, finish), the types derived from them, and the `Part` union with its extension point
 * for custom parts.
 *
 * In memory an image or file holds its bytes as a `Uint8Array`; on the wire (JSON) the bytes are
 * base64.
 *
 * @module
 */
import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { decodeBase64, encodeBase64 } from '../internal/base64.ts'
import { retarget, withDefault } from '../internal/codec.ts'

// --- codec helpers ---

/**
 * The codec type of {@link struct}: a readonly intersection of exact required and optional fields.
 *
 * @since 0.1.0
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
 * A part's fields that only its provider knows (Anthropic's `cache_control` or `citations` on a
 * text block, OpenAI's item `id` or `status`, …), by provider id, each as the provider sent them.
 * The provider's `to…` adapter puts them back on the block it writes; another provider's adapter
 * leaves them out with a `provider_fields_dropped` note. Absent when there are none.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ProviderFieldsC: t.ReadonlyC<t.RecordC<t.StringC, t.ReadonlyC<t.UnknownRecordC>>> = t.readonly(
  t.record(t.string, t.readonly(t.UnknownRecord)),
  'ProviderFields',
)

/**
 * Plain text.
 *
 * @since 0.1.0
 * @category codecs
 */
export const TextPartC: StructC<{ type: t.LiteralC<'text'>; text: t.StringC }, { providerFields: typeof ProviderFieldsC }> = struct(
  'TextPart',
  { type: t.literal('text'), text: t.string },
  { providerFields: ProviderFieldsC },
)

/**
 * Reasoning ("thinking") with the provider's opaque signature, kept unmodified for round trips.
 * `redacted` marks encrypted reasoning whose `text` is the provider's opaque payload.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ReasoningPartC: StructC<
  { type: t.LiteralC<'reasoning'>; text: t.StringC },
  { signature: t.StringC; redacted: t.BooleanC; providerFields: typeof ProviderFieldsC }
> = struct(
  'ReasoningPart',
  { type: t.literal('reasoning'), text: t.string },
  { signature: t.string, redacted: t.boolean, providerFields: ProviderFieldsC },
)

/**
 * An image by URL or by bytes (with a media type such as `image/png`).
 *
 * @since 0.1.0
 * @category codecs
 */
type ImagePartFields = StructC<
  { type: t.LiteralC<'image'> },
  { url: t.StringC; data: typeof BytesC; mediaType: t.StringC; providerFields: typeof ProviderFieldsC }
>
export const ImagePartC: t.Type<t.TypeOf<ImagePartFields>, t.OutputOf<ImagePartFields>, unknown> = refine(
  struct('ImagePart', { type: t.literal('image') }, { url: t.string, data: BytesC, mediaType: t.string, providerFields: ProviderFieldsC }),
  (p) => p.url !== undefined || p.data !== undefined,
  'an image with a url or data',
)

/**
 * Any other media (audio, video, PDF, …) by URL or bytes, with its media type.
 *
 * @since 0.1.0
 * @category codecs
 */
type FilePartFields = StructC<
  { type: t.LiteralC<'file'>; mediaType: t.StringC },
  { url: t.StringC; data: typeof BytesC; filename: t.StringC; providerFields: typeof ProviderFieldsC }
>
export const FilePartC: t.Type<t.TypeOf<FilePartFields>, t.OutputOf<FilePartFields>, unknown> = refine(
  struct('FilePart', { type: t.literal('file'), mediaType: t.string }, { url: t.string, data: BytesC, filename: t.string, providerFields: ProviderFieldsC }),
  (p) => p.url !== undefined || p.data !== undefined,
  'a file with a url or data',
)

/**
 * The lifecycle of a tool call: streamed (`pending`), executing (`running`), done (`complete`, `error`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolCallStatusC: t.KeyofC<{ pending: null; running: null; complete: null; error: null }> = t.keyof({
  pending: null,
  running: null,
  complete: null,
  error: null,
}, 'ToolCallStatus')

/**
 * The assistant's request to run a tool. `arguments` is the raw JSON text, kept byte for byte.
 * On the wire a missing `status` means `complete`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolCallPartC: StructC<
  {
    type: t.LiteralC<'tool_call'>
    id: t.StringC
    name: t.StringC
    arguments: t.StringC
    status: t.Type<t.TypeOf<typeof ToolCallStatusC>, t.OutputOf<typeof ToolCallStatusC>, unknown>
  },
  { providerFields: typeof ProviderFieldsC }
> = struct(
  'ToolCallPart',
  {
    type: t.literal('tool_call'),
    id: t.string,
    name: t.string,
    arguments: t.string,
    status: withDefault(ToolCallStatusC, 'complete'),
  },
  { providerFields: ProviderFieldsC },
)

/**
 * A block that only one provider knows, kept as it came: `provider` names who sent it
 * (`'anthropic'`, `'openai'`, `'google'`, `'ai-sdk'`), `kind` is the provider's own type tag
 * (`'web_search_tool_result'`, `'compaction'`, `'executableCode'`, …) and `data` the whole block or
 * item, verbatim JSON. The same provider's `to…` adapter writes it back untouched, in its place;
 * another provider's adapter either maps it where a mapping is documented or leaves it out with a
 * `provider_part_dropped` note. A provider part of kind `compaction` is a compaction boundary.
 *
 * @since 0.1.0
 * @category codecs
 */
// deno-lint-ignore ban-types -- `{}` is io-ts's empty set of optional props
export const ProviderPartC: StructC<{ type: t.LiteralC<'provider'>; provider: t.StringC; kind: t.StringC; data: t.UnknownC }, {}> = struct(
  'ProviderPart',
  { type: t.literal('provider'), provider: t.string, kind: t.string, data: t.unknown },
  {},
)

/**
 * One block of a tool result's content when it is more than text: a text, image or file part, or a
 * provider part (a block only its provider knows, kept as it came). Nested parts are written flat
 * (`{"type":"image","data":"iVBOR…","mediaType":"image/png"}`), bytes as base64.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolResultBlockC: t.UnionC<[typeof TextPartC, typeof ImagePartC, typeof FilePartC, typeof ProviderPartC]> = t.union(
  [TextPartC, ImagePartC, FilePartC, ProviderPartC],
  'ToolResultBlock',
)

/**
 * What a tool returned: text, as every text result has been, or a list of blocks (text, images,
 * files, provider blocks) for a tool that returns more than text (a screenshot, a PDF page).
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolResultContentC: t.UnionC<[t.StringC, t.ReadonlyArrayC<typeof ToolResultBlockC>]> = t.union(
  [t.string, t.readonlyArray(ToolResultBlockC)],
  'ToolResultContent',
)

/**
 * The output of a tool run, linked to its call by `toolCallId`. `content` is text or a list of
 * blocks (see `ToolResultContentC`); a text result reads and writes as it always has. On the wire a
 * missing `isError` means `false`.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ToolResultPartC: StructC<
  {
    type: t.LiteralC<'tool_result'>
    toolCallId: t.StringC
    content: typeof ToolResultContentC
    isError: t.Type<boolean, boolean, unknown>
  },
  { name: t.StringC; providerFields: typeof ProviderFieldsC }
> = struct(
  'ToolResultPart',
  { type: t.literal('tool_result'), toolCallId: t.string, content: ToolResultContentC, isError: withDefault(t.boolean, false) },
  { name: t.string, providerFields: ProviderFieldsC },
)

/**
 * The end of an assistant turn and why (`end_turn`, `tool_use`, `max_tokens`, …).
 *
 * @since 0.1.0
 * @category codecs
 */
// deno-lint-ignore ban-types -- `{}` is io-ts's empty set of optional props
export const FinishPartC: StructC<{ type: t.LiteralC<'finish'>; reason: t.StringC }, {}> = struct(
  'FinishPart',
  { type: t.literal('finish'), reason: t.string },
  {},
)

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
export type ToolResultBlock = t.TypeOf<typeof ToolResultBlockC>
/** @since 0.1.0 @category model */
export type ToolResultContent = t.TypeOf<typeof ToolResultContentC>
/** @since 0.1.0 @category model */
export type FinishPart = t.TypeOf<typeof FinishPartC>
/** @since 0.1.0 @category model */
export type ProviderPart = t.TypeOf<typeof ProviderPartC>
/** @since 0.1.0 @category model */
export type ProviderFields = t.TypeOf<typeof ProviderFieldsC>

/**
 * The parts chatfold knows natively.
 *
 * @since 0.1.0
 * @category model
 */
export type BuiltinPart = TextPart | ReasoningPart | ImagePart | FilePart | ToolCallPart | ToolResultPart | FinishPart | ProviderPart

/**
 * Custom part types, added by declaration merging next to `registerPart`:
 *
 * ```ts
 * declare module 'chatfold/message' { interface CustomParts { audio: AudioPart } }
 * ```
 *
 * @since 0.1.0
 * @category model
 */
// deno-lint-ignore no-empty-interface -- an empty interface is the extension point (declaration merging)
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
