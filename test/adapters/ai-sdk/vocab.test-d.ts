/**
 * Type-level check, run by `tsc`: every content part type of the installed `ai`'s `ModelMessage`,
 * every tool-result output type, every `UIMessage` part type (`tool-{name}` and `data-{name}`
 * included) and every UI tool state is one that the decoders name. When the SDK gains one, this
 * file stops compiling until a handler gives it a home.
 */
import type { ModelMessage, ToolResultPart, ToolUIPart, UIMessage } from 'ai'
import type { AI_MODEL_PART_TYPES, AI_TOOL_OUTPUT_TYPES } from '../../../src/adapters/ai-sdk/model-messages-from.ts'
import type { AI_UI_TOOL_STATES, AIUIPartType } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'

/** `true` only when `T` is `never`. */
type IsNever<T> = [T] extends [never] ? true : false

type ContentPart<M> = M extends { readonly content: infer C } ? (C extends ReadonlyArray<infer P> ? P : never) : never
type ModelPartType = ContentPart<ModelMessage> extends { readonly type: infer T } ? T : never
type UIPartType = UIMessage['parts'][number]['type']

export const everyModelPartHandled: IsNever<Exclude<ModelPartType, (typeof AI_MODEL_PART_TYPES)[number]>> = true
export const noStaleModelPart: IsNever<Exclude<(typeof AI_MODEL_PART_TYPES)[number], ModelPartType>> = true
export const everyOutputHandled: IsNever<Exclude<ToolResultPart['output']['type'], (typeof AI_TOOL_OUTPUT_TYPES)[number]>> = true
export const everyUIPartHandled: IsNever<Exclude<UIPartType, AIUIPartType>> = true
export const everyToolStateHandled: IsNever<Exclude<ToolUIPart['state'], (typeof AI_UI_TOOL_STATES)[number]>> = true

// the unions read above are the SDK's own, not `never` (which would make the checks pass vacuously)
export const uiPartsRead: IsNever<UIPartType> = false
export const toolStatesRead: IsNever<Exclude<(typeof AI_UI_TOOL_STATES)[number], ToolUIPart['state']>> = true
