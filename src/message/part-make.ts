/**
 * Making parts and telling them apart: a constructor for each built-in part (`text`, `image`,
 * `toolCall`, …) and a refinement for each (`isText`, `isToolCall`, …), with `isFinished` for tool
 * calls.
 *
 * @module
 */
import type {
  FilePart,
  FinishPart,
  ImagePart,
  Part,
  ProviderPart,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolCallStatus,
  ToolResultContent,
  ToolResultPart,
} from './part-model.ts'

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
 * import { file } from 'chatfold/message'
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
 * A tool result for the call `toolCallId`. `content` is text, or a list of text, image, file and
 * provider blocks for a tool that returns more than text.
 *
 * @example
 * import { image, text, toolResult } from 'chatfold'
 * toolResult({ toolCallId: 'call_1', name: 'search', content: 'Go is a statically typed language' })
 * toolResult({ toolCallId: 'call_2', name: 'screenshot', content: [text('The page'), image({ url: 'https://example.com/shot.png' })] })
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolResult = (fields: {
  readonly toolCallId: string
  readonly content: ToolResultContent
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
 * import { finish } from 'chatfold/message'
 * finish('end_turn')
 *
 * @since 0.1.0
 * @category constructors
 */
export const finish = (reason: string): FinishPart => ({ type: 'finish', reason })

/**
 * A block only its provider knows, kept verbatim (see `ProviderPartC`): who sent it, its type
 * tag there, and the whole block as sent.
 *
 * @example
 * import { providerPart } from 'chatfold/message'
 * providerPart('anthropic', 'compaction', { type: 'compaction', content: 'Summary of the work so far…' })
 * // { type: 'provider', provider: 'anthropic', kind: 'compaction', data: { type: 'compaction', content: 'Summary of the work so far…' } }
 *
 * @since 0.1.0
 * @category constructors
 */
export const providerPart = (provider: string, kind: string, data: unknown): ProviderPart => ({ type: 'provider', provider, kind, data })

// --- refinements ---

/**
 * Whether a part is a text part (a refinement: the part's type narrows).
 *
 * @example
 * import { isText, text } from 'chatfold/message'
 * isText(text('hi')) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isText = (p: Part): p is TextPart => p.type === 'text'
/**
 * Whether a part is a reasoning part (a refinement: the part's type narrows).
 *
 * @example
 * import { isReasoning, reasoning } from 'chatfold/message'
 * isReasoning(reasoning('plan')) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isReasoning = (p: Part): p is ReasoningPart => p.type === 'reasoning'
/**
 * Whether a part is an image part (a refinement: the part's type narrows).
 *
 * @example
 * import { isImage, image } from 'chatfold/message'
 * isImage(image({ url: 'https://example.com/a.png' })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isImage = (p: Part): p is ImagePart => p.type === 'image'
/**
 * Whether a part is a file part (a refinement: the part's type narrows).
 *
 * @example
 * import { isFile, file } from 'chatfold/message'
 * isFile(file({ data: new Uint8Array([37, 80, 68, 70]), mediaType: 'application/pdf' })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isFile = (p: Part): p is FilePart => p.type === 'file'
/**
 * Whether a part is a toolCall part (a refinement: the part's type narrows).
 *
 * @example
 * import { isToolCall, toolCall } from 'chatfold/message'
 * isToolCall(toolCall({ id: 'c1', name: 'search' })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isToolCall = (p: Part): p is ToolCallPart => p.type === 'tool_call'
/**
 * Whether a part is a toolResult part (a refinement: the part's type narrows).
 *
 * @example
 * import { isToolResult, toolResult } from 'chatfold/message'
 * isToolResult(toolResult({ toolCallId: 'c1', content: '42' })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isToolResult = (p: Part): p is ToolResultPart => p.type === 'tool_result'
/**
 * Whether a part is a finish part (a refinement: the part's type narrows).
 *
 * @example
 * import { isFinish, finish } from 'chatfold/message'
 * isFinish(finish('end_turn')) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isFinish = (p: Part): p is FinishPart => p.type === 'finish'
/**
 * Whether a part is a providerPart part (a refinement: the part's type narrows).
 *
 * @example
 * import { isProviderPart, providerPart } from 'chatfold/message'
 * isProviderPart(providerPart('anthropic', 'web_search_tool_result', { tool_use_id: 's1', content: [] })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isProviderPart = (p: Part): p is ProviderPart => p.type === 'provider'

/**
 * Whether a part is a provider's compaction boundary: an Anthropic `compaction` block or an OpenAI
 * Responses `compaction` item, kept as a provider part. The provider reads such a block as the
 * start of the history: what came before it is replaced by it.
 *
 * @example
 * import { isCompactionBoundary, providerPart } from 'chatfold/message'
 * isCompactionBoundary(providerPart('openai', 'compaction', { type: 'compaction', encrypted_content: 'gAAA…' })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isCompactionBoundary = (p: Part): p is ProviderPart => p.type === 'provider' && p.kind === 'compaction'

/**
 * Whether a tool call has finished: complete or failed.
 *
 * @example
 * import { isFinished, toolCall } from 'chatfold/message'
 * // a call without a result is pending
 * isFinished(toolCall({ id: '1', name: 'ls' })) // false
 *
 * @since 0.1.0
 * @category refinements
 */
export const isFinished = (call: ToolCallPart): boolean => call.status === 'complete' || call.status === 'error'
