/**
 * Type-level check, run by `tsc`: every content block type of the installed `@anthropic-ai/sdk`
 * (stable and beta, request and response) is one `fromAnthropic` has a handler for. When the SDK
 * gains a block type, this file stops compiling until the adapter names it.
 */
import type Anthropic from '@anthropic-ai/sdk'
import type { BetaContentBlock, BetaContentBlockParam } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import type { BetaRawContentBlockDelta } from '@anthropic-ai/sdk/resources/beta/messages/messages'
import type { AnthropicBlockType } from '../../../src/adapters/anthropic/_blocks.ts'
import type { ANTHROPIC_DELTA_TYPES } from '../../../src/adapters/anthropic/stream.ts'

type Assert<T extends true> = T
type IsNever<T> = [T] extends [never] ? true : false

type RequestBlockTypes = Anthropic.ContentBlockParam['type'] | BetaContentBlockParam['type']
type ResponseBlockTypes = Anthropic.ContentBlock['type'] | BetaContentBlock['type']
/** What a tool result's content may hold besides the blocks above (kept inside the result, verbatim). */
type ResultContentTypes = Exclude<Extract<BetaContentBlockParam, { type: 'tool_result' }>['content'], string | undefined>[number]['type']

type DeltaTypes = Anthropic.RawContentBlockDelta['type'] | BetaRawContentBlockDelta['type']

export type VocabularyChecks = [
  Assert<IsNever<Exclude<DeltaTypes, (typeof ANTHROPIC_DELTA_TYPES)[number]>>>,
  Assert<IsNever<Exclude<RequestBlockTypes, AnthropicBlockType>>>,
  Assert<IsNever<Exclude<ResponseBlockTypes, AnthropicBlockType>>>,
  // every result content block the adapter reads as a part is in the list; the others stay in the result as they came
  Assert<IsNever<Exclude<ResultContentTypes, AnthropicBlockType | 'tool_reference' | 'browser_state'>>>,
]
