/**
 * Reading a tool result's content either way: as blocks (a text result is one text block) or as
 * text (each image, file or provider block named in brackets, so that nothing vanishes from a
 * text-only view).
 *
 * @module
 */
import type { ToolResultBlock, ToolResultContent, ToolResultPart } from './part-model.ts'

/**
 * A tool result's content as blocks: a text result is one text block (none when it is empty); a
 * block list comes back as it is.
 *
 * @example
 * import { toolResult, toolResultBlocks } from 'chatfold/message'
 * toolResultBlocks(toolResult({ toolCallId: 'c1', content: '42' })) // [{ type: 'text', text: '42' }]
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolResultBlocks = (p: { readonly content: ToolResultContent }): ReadonlyArray<ToolResultBlock> =>
  typeof p.content === 'string' ? (p.content === '' ? [] : [{ type: 'text', text: p.content }]) : p.content

/**
 * How a block that is not text is named in a text view: `[image image/png]`, `[file report.pdf
 * application/pdf]`, `[anthropic search_result]`.
 *
 * @example
 * import { image, toolResultBlockLabel } from 'chatfold/message'
 * toolResultBlockLabel(image({ data: new Uint8Array([137, 80]), mediaType: 'image/png' })) // '[image image/png]'
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolResultBlockLabel = (b: ToolResultBlock): string => {
  switch (b.type) {
    case 'text':
      return b.text
    case 'image':
      return `[image${b.mediaType === undefined ? '' : ` ${b.mediaType}`}${b.url === undefined ? '' : ` ${b.url}`}]`
    case 'file':
      return `[file${b.filename === undefined ? '' : ` ${b.filename}`} ${b.mediaType}${b.url === undefined ? '' : ` ${b.url}`}]`
    case 'provider':
      return `[${b.provider} ${b.kind}]`
  }
}

/**
 * A tool result's content as text: a text result as it is; a block list's texts joined by a
 * newline, with each image, file or provider block named in brackets (`[image image/png]`).
 *
 * @example
 * import { image, text, toolResult, toolResultText } from 'chatfold/message'
 * const shot = toolResult({ toolCallId: 'c1', content: [text('Screenshot taken'), image({ data: new Uint8Array([137, 80]), mediaType: 'image/png' })] })
 * toolResultText(shot) // 'Screenshot taken\n[image image/png]'
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolResultText = (p: { readonly content: ToolResultContent }): string =>
  typeof p.content === 'string' ? p.content : p.content.map(toolResultBlockLabel).join('\n')

/**
 * Whether a tool result holds more than text: an image, a file or a provider block.
 *
 * @example
 * import { image, toolResult, toolResultHasMedia } from 'chatfold/message'
 * toolResultHasMedia(toolResult({ toolCallId: 'c1', content: [image({ url: 'https://example.com/a.png' })] })) // true
 * toolResultHasMedia(toolResult({ toolCallId: 'c1', content: '42' })) // false
 *
 * @since 0.1.0
 * @category refinements
 */
export const toolResultHasMedia = (p: ToolResultPart): boolean => typeof p.content !== 'string' && p.content.some((b) => b.type !== 'text')
