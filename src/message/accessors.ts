/**
 * What a message holds (its text, tool calls and results, images, reasoning) and what it is (its
 * role and kind), read without changing it.
 *
 * @module
 */
import { isImage, isReasoning, isText, isToolCall, isToolResult } from './part-make.ts'
import type { ImagePart, ReasoningPart, ToolCallPart, ToolResultPart } from './part-model.ts'
import type { Kind, Message } from './message.ts'
import type { Role } from './role.ts'

// --- accessors ---

/**
 * The text of all text parts, concatenated.
 *
 * @example
 * import { makeMessage, text, textContent } from 'chatfold'
 * textContent(makeMessage({ role: 'user', parts: [text('a'), text('b')] })) // 'ab'
 *
 * @since 0.1.0
 * @category accessors
 */
export const textContent = (m: Message): string => {
  let s = ''
  for (const p of m.parts) if (isText(p)) s += p.text
  return s
}

/**
 * The tool calls of a message, in order.
 *
 * @example
 * import { makeMessage, toolCall, toolCalls } from 'chatfold'
 * toolCalls(makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'search' })] })).length // 1
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolCalls = (m: Message): ReadonlyArray<ToolCallPart> => m.parts.filter(isToolCall)

/**
 * The tool results of a message, in order.
 *
 * @example
 * import { makeMessage, toolResult, toolResults } from 'chatfold/message'
 * toolResults(makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: '42' })] }))[0]?.content // '42'
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolResults = (m: Message): ReadonlyArray<ToolResultPart> => m.parts.filter(isToolResult)

/**
 * The images of a message, in order.
 *
 * @example
 * import { image, images, makeMessage } from 'chatfold/message'
 * images(makeMessage({ role: 'user', parts: [image({ url: 'https://example.com/cat.png' })] })).length // 1
 *
 * @since 0.1.0
 * @category accessors
 */
export const images = (m: Message): ReadonlyArray<ImagePart> => m.parts.filter(isImage)

/**
 * The reasoning parts of a message, in order.
 *
 * @example
 * import { makeMessage, reasoning, reasoningParts } from 'chatfold/message'
 * reasoningParts(makeMessage({ role: 'assistant', parts: [reasoning('hmm')] })).length // 1
 *
 * @since 0.1.0
 * @category accessors
 */
export const reasoningParts = (m: Message): ReadonlyArray<ReasoningPart> => m.parts.filter(isReasoning)

/**
 * The text of all reasoning parts, concatenated.
 *
 * @example
 * import { makeMessage, reasoning, reasoningText } from 'chatfold/message'
 * reasoningText(makeMessage({ role: 'assistant', parts: [reasoning('hmm')] })) // 'hmm'
 *
 * @since 0.1.0
 * @category accessors
 */
export const reasoningText = (m: Message): string => {
  let s = ''
  for (const p of m.parts) if (isReasoning(p) && p.redacted !== true) s += p.text
  return s
}

// --- refinements ---

/**
 * Whether a message has the given role; curried, so it goes straight into `filter` or `find`.
 *
 * @example
 * import { hasRole, textMessage } from 'chatfold/message'
 * [textMessage('system', 'Be brief.'), textMessage('user', 'Hi')].filter(hasRole('system')).length // 1
 *
 * @since 0.1.0
 * @category refinements
 */
export const hasRole = (role: Role) => (m: Message): boolean => m.role === role

/**
 * Whether a message is of the given kind (`normal`, `synthetic`, `ephemeral`, `display`,
 * `bookmark` or `metadata`); curried, so it goes straight into `filter` or `find`.
 *
 * @example
 * import { hasKind, textMessage } from 'chatfold/message'
 * [textMessage('user', 'x', { kind: 'synthetic' }), textMessage('user', 'y')].filter(hasKind('synthetic')).length // 1
 *
 * @since 0.1.0
 * @category refinements
 */
export const hasKind = (kind: Kind) => (m: Message): boolean => m.kind === kind

/**
 * Whether a message must never reach any model: display-only, bookmark or metadata.
 *
 * @example
 * import { isInternal, textMessage } from 'chatfold/message'
 * isInternal(textMessage('user', 'saved at 10:02', { kind: 'bookmark' })) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isInternal = (m: Message): boolean => m.kind === 'display' || m.kind === 'bookmark' || m.kind === 'metadata'

/**
 * Whether a message says nothing: no non-blank text, no reasoning, no tool call or result, no image
 * or file (a lone finish marker is empty).
 *
 * @example
 * import { isEmpty, textMessage } from 'chatfold/message'
 * isEmpty(textMessage('assistant', '  ')) // true
 *
 * @since 0.1.0
 * @category refinements
 */
export const isEmpty = (m: Message): boolean =>
  m.parts.every((p) => p.type === 'text' ? p.text.trim() === '' : p.type === 'reasoning' ? p.text === '' && p.signature === undefined : p.type === 'finish')
