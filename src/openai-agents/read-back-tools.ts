/**
 * The read-back tools (`chatfold/readback`'s `readBackTools`) as function tools of the OpenAI
 * Agents SDK, in the shape its `tool()` makes (strict JSON Schema parameters, `invoke` with the
 * model's JSON text), so that `@openai/agents` is needed for its types only.
 *
 * @module
 */
import type { FunctionTool } from '@openai/agents'
import { type ReadBackTool, readBackTools, type ReadBackToolsOptions } from '../readback/tools.ts'

const functionTool = <A>(t: ReadBackTool<A>): FunctionTool => ({
  type: 'function',
  name: t.name,
  description: t.description,
  parameters: { ...t.parameters, properties: { ...t.parameters.properties }, required: [...t.parameters.required] },
  strict: true,
  // the SDK passes the arguments the model wrote, as JSON text; the answer goes back as JSON text
  invoke: async (_context, input) => JSON.stringify(await t.run(input)),
  needsApproval: async () => false,
  isEnabled: async () => true,
})

/**
 * The read-back tools as OpenAI Agents SDK function tools (`read_pruned_output`, `search_history`)
 * over `source` (see `readBackTools`): give them to an `Agent`'s `tools`, so that the model can read
 * back what pruning or compaction took out of its context. Each answers JSON text: a page
 * (`{ text, offset, next, … }`), the hits, or `{ error }`.
 *
 * @example
 * import { Agent } from '@openai/agents'
 * import { readBackAgentTools } from 'chatfold/openai-agents'
 * declare const archive: import('chatfold').Messages
 * const agent = new Agent({ name: 'coder', instructions: 'Fix the bug.', tools: readBackAgentTools({ source: () => archive }) })
 *
 * @since 0.1.0
 * @category read-back
 */
export const readBackAgentTools = (options: ReadBackToolsOptions): [FunctionTool, FunctionTool] => {
  const { read, search } = readBackTools(options)
  return [functionTool(read), functionTool(search)]
}
