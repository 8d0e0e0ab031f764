/**
 * The assembler of Anthropic Messages stream events (see `streams.ts`).
 *
 * @module
 */
import * as t from 'io-ts'
import type { LifecycleInput } from '../../builder/types.ts'
import { providerPart } from '../../message/part-make.ts'
import { parseJson } from '../tool-turns.ts'
import { reader } from '../decode.ts'
import { extrasOf, requestShape } from './_blocks.ts'
import { field, lifecycle, num, str, type StreamAssembler } from '../stream-kit.ts'
import { isObject } from '../../internal/object.ts'

/**
 * The content block delta types `anthropicStream` reads: every one of the stable and beta API.
 *
 * @since 0.1.0
 * @category adapters
 */
export const ANTHROPIC_DELTA_TYPES = ['text_delta', 'thinking_delta', 'signature_delta', 'input_json_delta', 'citations_delta', 'compaction_delta'] as const

const AnthropicBlockC = t.intersection([
  t.type({ type: t.string }),
  t.partial({ id: t.string, name: t.string, text: t.string, thinking: t.string, data: t.string }),
])

/** A block being streamed: a built-in one, or one kept verbatim (its input JSON streamed apart). */
type Open =
  | { readonly kind: 'text'; filled: boolean; readonly citations: unknown[] }
  | { readonly kind: 'thinking'; filled: boolean }
  | { readonly kind: 'tool_use'; readonly id: string; filled: boolean }
  | { readonly kind: 'block'; readonly block: Record<string, unknown>; json: string; done: boolean }

/** A verbatim block as a provider part, its streamed input parsed in. */
const blockPart = (open: Extract<Open, { kind: 'block' }>): LifecycleInput => {
  const input = open.json === '' ? undefined : parseJson(open.json)
  const data = input === undefined ? open.block : { ...open.block, input: input.value }
  return { type: 'addPart', part: providerPart('anthropic', String(open.block['type']), data) }
}

/** The fields of a block no part field carries, set on the part just added (as `fromAnthropicMessage` keeps them). */
const ownFields = (raw: Readonly<Record<string, unknown>>, mapped: ReadonlyArray<string>): LifecycleInput[] => {
  const shaped = requestShape(raw)
  const fields = isObject(shaped) ? extrasOf(shaped, mapped) : undefined
  return fields === undefined ? [] : [{ type: 'setPartFields', provider: 'anthropic', fields }]
}

/** Appends a streamed piece of a compaction block's summary (or its encrypted form). */
const compactionDelta = (block: Record<string, unknown>, delta: unknown): void => {
  for (const key of ['content', 'encrypted_content']) {
    const piece = str(delta, key)
    if (piece !== undefined) block[key] = (typeof block[key] === 'string' ? block[key] : '') + piece
  }
}

/**
 * An assembler for Anthropic Messages stream events: `message_start` opens the reply (its `id` and
 * `model`); `content_block_start` opens a text, thinking, redacted-thinking or tool-use block;
 * `text_delta`, `thinking_delta`, `signature_delta` and `input_json_delta` fill it (a tool call
 * whose input never streams gets `{}`); `citations_delta` sets the text's citations (in its
 * `providerFields.anthropic`); `message_delta` sets the finish part (the `stop_reason` as it is) and
 * records the output tokens; `message_stop` finalizes; an `error` event sets the message's error.
 * `end` finalizes a stream that stopped without `message_stop`.
 *
 * Every other block (a server tool call and its result, an MCP block, a compaction block, …) is
 * added at its `content_block_stop` as a provider part holding the block, with its streamed input
 * (`input_json_delta`) or summary (`compaction_delta`), as `fromAnthropicMessage` reads it from a
 * whole message. Each text block is a text part of its own.
 *
 * A thinking block that streams a signature but no text becomes a reasoning part of its own (empty,
 * signed), so every signature goes back to the provider unmodified.
 *
 * @example
 * import { anthropicStream } from 'chatfold/adapters'
 * const assembler = anthropicStream()
 * assembler.push({ type: 'message_start', message: { id: 'msg_1', model: 'claude-sonnet-4-5', content: [] } })
 * assembler.push({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'ls', input: {} } })
 * assembler.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"path":"."}' } })
 *
 * @since 0.1.0
 * @category adapters
 */
export const anthropicStream = (): StreamAssembler => {
  const life = lifecycle('anthropic')
  const blocks = new Map<number, Open>()
  let lastText = false
  const decode = reader()
  /** The verbatim blocks that never stopped, added before the reply closes. */
  const flush = (): LifecycleInput[] => {
    const out: LifecycleInput[] = []
    if (!life.live) return out
    for (const open of blocks.values()) {
      if (open.kind === 'block' && !open.done) {
        open.done = true
        out.push(blockPart(open))
      }
    }
    return out
  }
  return {
    push: (event) => {
      const type = str(event, 'type')
      const index = num(event, 'index') ?? 0
      switch (type) {
        case 'message_start': {
          const message = field(event, 'message')
          life.tokens(num(field(message, 'usage'), 'output_tokens'))
          return life.start(str(message, 'id'), str(message, 'model'))
        }
        case 'content_block_start': {
          const raw = field(event, 'content_block')
          const block = decode.read(AnthropicBlockC, raw, '')
          if (block === undefined || !isObject(raw)) return []
          const out: LifecycleInput[] = life.ensure()
          const afterText = lastText
          lastText = block.type === 'text'
          if (block.type === 'text') {
            blocks.set(index, { kind: 'text', filled: false, citations: [] })
            // a text block after another is a part of its own, as in a whole message
            if (afterText) out.push({ type: 'addPart', part: { type: 'text', text: '' } })
            if (block.text !== undefined && block.text !== '') out.push({ type: 'appendContent', text: block.text })
          } else if (block.type === 'thinking') {
            blocks.set(index, { kind: 'thinking', filled: block.thinking !== undefined && block.thinking !== '' })
            if (block.thinking !== undefined && block.thinking !== '') out.push({ type: 'appendThinking', text: block.thinking })
          } else if (block.type === 'redacted_thinking' && block.data !== undefined) {
            out.push({ type: 'addRedactedThinking', data: block.data }, ...ownFields(raw, ['type', 'data']))
          } else if (block.type === 'tool_use' && block.id !== undefined) {
            blocks.set(index, { kind: 'tool_use', id: block.id, filled: false })
            // a call's other fields (a `caller` that is not the model itself, …) stay on it, as in a whole message
            out.push({ type: 'addToolCall', id: block.id, name: block.name ?? '' }, ...ownFields(raw, ['type', 'id', 'name', 'input']))
          } else {
            const kept = requestShape(raw)
            blocks.set(index, { kind: 'block', block: isObject(kept) ? { ...kept } : { ...raw }, json: '', done: false })
          }
          return out
        }
        case 'content_block_delta': {
          const delta = field(event, 'delta')
          const block = blocks.get(index)
          switch (str(delta, 'type')) {
            case 'text_delta': {
              const text = str(delta, 'text')
              if (text === undefined || text === '') return []
              const out: LifecycleInput[] = [...life.ensure(), { type: 'appendContent', text }]
              if (block?.kind === 'text' && !block.filled) {
                block.filled = true
                if (block.citations.length > 0) out.push({ type: 'setPartFields', provider: 'anthropic', fields: { citations: [...block.citations] } })
              }
              return out
            }
            case 'citations_delta': {
              const citation = field(delta, 'citation')
              if (block?.kind !== 'text' || citation === undefined) return []
              block.citations.push(citation)
              return block.filled && life.live ? [{ type: 'setPartFields', provider: 'anthropic', fields: { citations: [...block.citations] } }] : []
            }
            case 'thinking_delta': {
              const text = str(delta, 'thinking')
              if (text === undefined || text === '') return []
              if (block !== undefined && block.kind !== 'block') block.filled = true
              return [...life.ensure(), { type: 'appendThinking', text }]
            }
            case 'signature_delta': {
              const signature = str(delta, 'signature')
              if (signature === undefined || !life.live) return []
              return [{ type: 'setThinkingSignature', signature }]
            }
            case 'input_json_delta': {
              const fragment = str(delta, 'partial_json')
              if (fragment === undefined || fragment === '') return []
              if (block?.kind === 'block') {
                block.json += fragment
                return []
              }
              if (block?.kind !== 'tool_use' || !life.live) return []
              block.filled = true
              return [{ type: 'appendToolCallArguments', id: block.id, fragment }]
            }
            case 'compaction_delta':
              if (block?.kind === 'block') compactionDelta(block.block, delta)
              return []
            default:
              return []
          }
        }
        case 'content_block_stop': {
          const block = blocks.get(index)
          if (block?.kind !== 'block' || block.done || !life.live) return []
          block.done = true
          return [blockPart(block)]
        }
        case 'message_delta': {
          life.tokens(num(field(event, 'usage'), 'output_tokens'))
          const reason = str(field(event, 'delta'), 'stop_reason')
          return reason === undefined || !life.live ? [] : [...flush(), { type: 'finish', reason }]
        }
        case 'message_stop':
          return [...flush(), ...life.finalize()]
        case 'error': {
          const error = field(event, 'error')
          const message = str(error, 'message') ?? 'error'
          const kind = str(error, 'type')
          return [...life.ensure(), { type: 'setError', error: kind === undefined ? message : `${kind}: ${message}` }]
        }
        default:
          return []
      }
    },
    end: () => [...flush(), ...life.finalize()],
  }
}
