/**
 * The read-back tools (`chatfold/readback`'s `readBackTools`) as tools of an in-process MCP server
 * of the Claude Agent SDK: definitions in the shape the SDK's `tool()` returns, for its
 * `createSdkMcpServer({ tools })`. Their input shapes are zod's, as the SDK requires; zod is the
 * SDK's peer, not chatfold's, so the caller passes its `z`, and the SDK and zod are needed for
 * their types only.
 *
 * @module
 */
import type { SdkMcpToolDefinition } from '@anthropic-ai/claude-agent-sdk'
import type { z as Zod } from 'zod'
import { type ReadAnswer, readBackTools, type ReadBackToolsOptions, type SearchAnswer } from '../readback/tools.ts'

/** What an MCP tool answers: text blocks, and whether it is an error. */
type CallResult = { content: Array<{ type: 'text'; text: string }>; isError?: boolean }

const readResult = (a: ReadAnswer): CallResult => {
  if ('error' in a) return { content: [{ type: 'text', text: a.error }], isError: true }
  const { text, ...where } = a
  // the page as it is, then where it is in the output
  return { content: [{ type: 'text', text }, { type: 'text', text: JSON.stringify(where) }] }
}

const searchResult = (a: SearchAnswer): CallResult =>
  'error' in a ? { content: [{ type: 'text', text: a.error }], isError: true } : { content: [{ type: 'text', text: JSON.stringify(a) }] }

/** The input shape of `read_pruned_output`. */
export type ReadShape = { ref: Zod.ZodString; offset: Zod.ZodOptional<Zod.ZodNullable<Zod.ZodNumber>> }

/** The input shape of `search_history`. */
export type SearchShape = {
  query: Zod.ZodString
  match: Zod.ZodOptional<Zod.ZodNullable<Zod.ZodEnum<{ text: 'text'; regex: 'regex' }>>>
  limit: Zod.ZodOptional<Zod.ZodNullable<Zod.ZodNumber>>
}

/**
 * The read-back tools (`read_pruned_output`, `search_history`) over `source` (see
 * `readBackTools`) as MCP tool definitions for the Claude Agent SDK's `createSdkMcpServer`, their
 * input shapes made with the `z` you pass (zod 4, the SDK's peer). `read_pruned_output` answers the
 * page's text as it is in its first block and where it is (`{ offset, bytes, totalBytes, next }`)
 * in its second; a failure is an error result whose text says why.
 *
 * @example
 * import { createSdkMcpServer, query } from '@anthropic-ai/claude-agent-sdk'
 * import { z } from 'zod'
 * import { readBackMcpTools } from 'chatfold/claude-agent-sdk'
 * declare const archive: import('chatfold').Messages
 * const chatfold = createSdkMcpServer({ name: 'chatfold', tools: readBackMcpTools({ source: () => archive, z }) })
 * query({ prompt: 'Go on.', options: { mcpServers: { chatfold }, allowedTools: ['mcp__chatfold__read_pruned_output', 'mcp__chatfold__search_history'] } })
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackMcpTools = (
  options: ReadBackToolsOptions & { readonly z: typeof Zod },
): [SdkMcpToolDefinition<ReadShape>, SdkMcpToolDefinition<SearchShape>] => {
  const { z } = options
  const { read, search } = readBackTools(options)
  const readShape: ReadShape = {
    ref: z.string().describe('The reference the placeholder shows, e.g. call_1@0f3a9c21'),
    offset: z.number().int().nullable().optional().describe('Byte offset to read from: null or absent for the start, or the "next" of the previous page'),
  }
  const searchShape: SearchShape = {
    query: z.string().describe('The text (matched in any case) or the regular expression'),
    match: z.enum(['text', 'regex']).nullable().optional().describe('text (the default) or regex'),
    limit: z.number().int().nullable().optional().describe('The most hits (default 20)'),
  }
  return [
    { name: read.name, description: read.description, inputSchema: readShape, handler: async (args) => readResult(await read.run(args)) },
    { name: search.name, description: search.description, inputSchema: searchShape, handler: async (args) => searchResult(await search.run(args)) },
  ]
}
