/**
 * A provider's server tools (tools the provider ran itself: an Anthropic `server_tool_use` and its
 * `…_tool_result`, an OpenAI `web_search_call`, `code_interpreter_call`, …) as the AI SDK's
 * `dynamic-tool` UI parts with `providerExecuted: true`, and back. The provider's own blocks ride
 * along, verbatim, under the `chatfold` key of the part's `callProviderMetadata` (a key no provider
 * reads), so that `fromUIMessages` gives back the very parts `toUIMessages` took. Private to the AI
 * SDK adapter.
 *
 * @module
 */
import type { Message } from '../../message/message.ts'
import type { Part, ProviderPart } from '../../message/part-model.ts'
import { isObject } from '../../internal/object.ts'

/** The key of `callProviderMetadata` that carries the provider's blocks of a server tool. */
export const SERVER_TOOL_KEY = 'chatfold'

/** What `callProviderMetadata.chatfold` holds: the provider and its blocks, as they came. */
export type ServerToolCarried = { readonly provider: string; readonly kinds: ReadonlyArray<string>; readonly blocks: ReadonlyArray<unknown> }

/** The OpenAI items a hosted tool writes (call and result in one item), and the field holding its result. */
const OPENAI_HOSTED: Readonly<Record<string, string | undefined>> = {
  web_search_call: undefined,
  code_interpreter_call: 'outputs',
  file_search_call: 'results',
  image_generation_call: 'result',
  mcp_call: 'output',
}

type Tool = {
  readonly toolCallId: string
  readonly toolName: string
  readonly input: unknown
  readonly outcome: { readonly state: 'output-available'; readonly output: unknown } | { readonly state: 'output-error'; readonly errorText: string } | {
    readonly state: 'input-available'
  }
  readonly parts: ReadonlyArray<ProviderPart>
}

const str = (o: unknown, k: string): string | undefined => (isObject(o) && typeof o[k] === 'string' ? o[k] : undefined)

/** An Anthropic server tool call and the result block answering it in the same message. */
const anthropicTool = (p: ProviderPart, all: ReadonlyArray<Part>): Tool | undefined => {
  const id = str(p.data, 'id')
  const name = str(p.data, 'name')
  if (p.kind !== 'server_tool_use' || id === undefined || name === undefined || !isObject(p.data)) return undefined
  const result = all.find((x): x is ProviderPart =>
    x.type === 'provider' && x.provider === 'anthropic' && x.kind.endsWith('_tool_result') && str(x.data, 'tool_use_id') === id
  )
  const content = isObject(result?.data) ? result.data['content'] : undefined
  const failed = str(content, 'type')?.endsWith('_error') === true ? (str(content, 'error_code') ?? 'error') : undefined
  return {
    toolCallId: id,
    toolName: name,
    input: p.data['input'] ?? {},
    outcome: result === undefined
      ? { state: 'input-available' }
      : failed === undefined
      ? { state: 'output-available', output: content ?? null }
      : { state: 'output-error', errorText: failed },
    parts: result === undefined ? [p] : [p, result],
  }
}

/** An OpenAI hosted tool's item: its fields as the input, its result field as the output. */
const openAITool = (p: ProviderPart): Tool | undefined => {
  if (!(p.kind in OPENAI_HOSTED) || !isObject(p.data)) return undefined
  const id = str(p.data, 'id')
  if (id === undefined) return undefined
  const field = OPENAI_HOSTED[p.kind]
  const input = Object.fromEntries(
    Object.entries(p.data).filter(([k]) => !['id', 'type', 'status', 'error', ...(field === undefined ? [] : [field])].includes(k)),
  )
  const error = p.data['error']
  return {
    toolCallId: id,
    toolName: p.kind === 'mcp_call' ? (str(p.data, 'name') ?? 'mcp') : p.kind.slice(0, -'_call'.length),
    input,
    outcome: error !== undefined && error !== null
      ? { state: 'output-error', errorText: typeof error === 'string' ? error : JSON.stringify(error) }
      : { state: 'output-available', output: field === undefined ? { status: p.data['status'] ?? null } : (p.data[field] ?? null) },
    parts: [p],
  }
}

/**
 * An assistant message with its server tools as tool calls that `toUIMessages` writes as
 * `dynamic-tool` parts (each call where the provider's call block stood, its result block taken
 * into it), and the provider parts so taken. The message itself when it holds none.
 */
export const withServerTools = (owner: string, m: Message): { readonly message: Message; readonly taken: ReadonlySet<Part> } => {
  if (m.role !== 'assistant') return { message: m, taken: new Set() }
  const taken = new Set<Part>()
  const parts: Part[] = []
  for (const p of m.parts) {
    if (taken.has(p)) continue
    const tool = p.type !== 'provider' || p.provider === owner
      ? undefined
      : p.provider === 'anthropic'
      ? anthropicTool(p, m.parts)
      : p.provider === 'openai'
      ? openAITool(p)
      : undefined
    if (tool === undefined) {
      parts.push(p)
      continue
    }
    for (const x of tool.parts) taken.add(x)
    const carried: ServerToolCarried = { provider: tool.parts[0]?.provider ?? '', kinds: tool.parts.map((x) => x.kind), blocks: tool.parts.map((x) => x.data) }
    const { state, ...outcome } = tool.outcome
    parts.push({
      type: 'tool_call',
      id: tool.toolCallId,
      name: tool.toolName,
      arguments: JSON.stringify(tool.input),
      status: 'complete',
      providerFields: {
        'ai-sdk': {
          dynamic: true,
          state,
          ui: { ...outcome, providerExecuted: true, callProviderMetadata: { [SERVER_TOOL_KEY]: carried } },
        },
      },
    })
  }
  return taken.size === 0 ? { message: m, taken } : { message: { ...m, parts: parts.filter((p) => !taken.has(p)) }, taken }
}

/** The provider parts a `dynamic-tool` part carries (see the module notes), when it carries them. */
export const carriedParts = (callProviderMetadata: unknown): ReadonlyArray<ProviderPart> | undefined => {
  const c = isObject(callProviderMetadata) ? callProviderMetadata[SERVER_TOOL_KEY] : undefined
  if (!isObject(c) || typeof c['provider'] !== 'string' || !Array.isArray(c['kinds']) || !Array.isArray(c['blocks'])) return undefined
  const provider = c['provider']
  const kinds = c['kinds']
  const blocks = c['blocks']
  if (kinds.length !== blocks.length || !kinds.every((k: unknown) => typeof k === 'string')) return undefined
  return blocks.map((data: unknown, i: number): ProviderPart => ({ type: 'provider', provider, kind: kinds[i] as string, data }))
}
