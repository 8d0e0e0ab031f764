/**
 * Anthropic Messages: the shapes of a request's `system` and `messages` as `toAnthropic` writes them.
 *
 * @module
 */

/**
 * The image types Anthropic accepts as base64 sources.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'

/**
 * A text, image or document block: user content, and what a tool result may hold.
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicMediaBlock =
  | { readonly type: 'text'; readonly text: string }
  | {
    readonly type: 'image'
    readonly source:
      | { readonly type: 'base64'; readonly media_type: AnthropicImageType; readonly data: string }
      | { readonly type: 'url'; readonly url: string }
  }
  | {
    readonly type: 'document'
    readonly source:
      | { readonly type: 'base64'; readonly media_type: 'application/pdf'; readonly data: string }
      | { readonly type: 'url'; readonly url: string }
      | { readonly type: 'text'; readonly media_type: 'text/plain'; readonly data: string }
    readonly title?: string
  }

/**
 * A content block of a Messages request, as `toAnthropic` writes it.
 *
 * @example
 * import type { AnthropicBlock } from 'chatfold/adapters'
 * const block: AnthropicBlock = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'README.md', is_error: false }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicBlock =
  | AnthropicMediaBlock
  | AnthropicProviderBlock
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: Record<string, unknown> }
  | {
    readonly type: 'tool_result'
    readonly tool_use_id: string
    readonly content: string | Array<AnthropicMediaBlock | AnthropicProviderBlock>
    readonly is_error?: boolean
  }

/**
 * A block written back as it came: one that only Anthropic knows (a server tool call or result, a
 * search result, an MCP block, a compaction block, …), from a provider part of `'anthropic'`. Its
 * shape is the API's own, which chatfold does not check: to pass a request holding such blocks to
 * the SDK, give it as the beta `MessageCreateParams` the blocks belong to.
 *
 * @example
 * import type { AnthropicProviderBlock } from 'chatfold/adapters'
 * const block: AnthropicProviderBlock = { type: 'compaction', content: 'The user asked for a parser; it is written.' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicProviderBlock = { readonly type: string; readonly [field: string]: unknown }

/**
 * A turn of a Messages request. Arrays are plain `Array`s so that the request passes straight to
 * the SDK. A system turn among the messages is written only for a system message read from one
 * (`fromAnthropic`); any other system message after the first turn goes out as user text.
 *
 * @example
 * import type { AnthropicMessage } from 'chatfold/adapters'
 * const turn: AnthropicMessage = { role: 'user', content: 'Hi' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicMessage =
  | { readonly role: 'user'; readonly content: string | Array<AnthropicBlock> }
  | { readonly role: 'assistant'; readonly content: string | Array<AnthropicBlock> }
  | {
    readonly role: 'system'
    readonly content?: string | Array<{ readonly type: 'text'; readonly text: string; readonly [field: string]: unknown } | AnthropicProviderBlock>
    readonly [field: string]: unknown
  }

/**
 * The request fields `toAnthropic` produces: spread them into `client.messages.create`.
 *
 * @example
 * import type { AnthropicRequest } from 'chatfold/adapters'
 * const request: AnthropicRequest = { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }
 *
 * @since 0.1.0
 * @category adapters
 */
export type AnthropicRequest = {
  readonly system?: string | Array<{ readonly type: 'text'; readonly text: string; readonly [field: string]: unknown }>
  readonly messages: Array<AnthropicMessage>
}
