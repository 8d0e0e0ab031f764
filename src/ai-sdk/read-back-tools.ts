/**
 * The read-back tools (`chatfold/readback`'s `readBackTools`) in the AI SDK's tool shape, for
 * `generateText`'s and `streamText`'s `tools`: their input schemas are Standard Schemas with a JSON
 * Schema, which the AI SDK reads as it reads a zod schema, so `ai` is needed for its types only.
 *
 * @module
 */
import type { Tool } from 'ai'
import { type ReadAnswer, type ReadBackTool, readBackTools, type ReadBackToolsOptions, type SearchAnswer } from '../readback/tools.ts'

/** A Standard Schema (standardschema.dev, version 1) that takes any value and gives its JSON Schema. */
const standardSchema = (schema: ReadBackTool<unknown>['parameters']) => ({
  '~standard': {
    version: 1 as const,
    vendor: 'chatfold',
    // the tool decodes its input itself and answers a bad one as an error the model reads
    validate: (value: unknown) => ({ value }),
    jsonSchema: { input: () => ({ ...schema }), output: () => ({ ...schema }) },
  },
})

/**
 * The read-back tools as AI SDK tools, keyed by name (`read_pruned_output`, `search_history`),
 * over `source` (see `readBackTools`): give them to `generateText` or `streamText` beside the
 * agent's own, so that the model can read back what pruning or compaction took out of its context.
 *
 * @example
 * import { generateText, stepCountIs } from 'ai'
 * import { readBackAITools } from 'chatfold/ai-sdk'
 * declare const model: import('ai').LanguageModel
 * declare const history: import('chatfold').Messages // before pruning, or a compaction's archive
 * await generateText({ model, tools: readBackAITools({ source: () => history }), stopWhen: stepCountIs(5), prompt: 'Go on.' })
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackAITools = (
  options: ReadBackToolsOptions,
): { readonly read_pruned_output: Tool<unknown, ReadAnswer>; readonly search_history: Tool<unknown, SearchAnswer> } => {
  const { read, search } = readBackTools(options)
  const readTool: Tool<unknown, ReadAnswer> = {
    description: read.description,
    inputSchema: standardSchema(read.parameters),
    execute: (input) => read.run(input),
  }
  const searchTool: Tool<unknown, SearchAnswer> = {
    description: search.description,
    inputSchema: standardSchema(search.parameters),
    execute: (input) => search.run(input),
  }
  return { read_pruned_output: readTool, search_history: searchTool }
}
