/**
 * One message of a conversation: its role, its parts (text, reasoning, images, files, tool calls
 * and results, a finish reason, a provider's own blocks kept as they came, parts you register), its
 * kind (normal, synthetic, ephemeral, display, bookmark, metadata), and decoding it from untrusted
 * JSON with every bad field named by its path.
 *
 * Every type is readonly and derived from its io-ts codec; every function returns a new value.
 *
 * @example
 * import { makeMessage, text, textContent, toolCall, toolCalls } from 'chatfold/message'
 * const m = makeMessage({ role: 'assistant', parts: [text('Looking it up.'), toolCall({ id: 'c1', name: 'search', arguments: '{"q":"go"}' })] })
 * textContent(m) // 'Looking it up.'
 * toolCalls(m).length // 1
 *
 * @module
 */
export { isRole, type Role } from './role.ts'
export { type DecodeFailure, type DecodeIssue, formatDecodeFailure } from './failure.ts'
export type {
  CustomPart,
  CustomParts,
  FilePart,
  FinishPart,
  ImagePart,
  Part,
  ProviderFields,
  ProviderPart,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolCallStatus,
  ToolResultBlock,
  ToolResultContent,
  ToolResultPart,
} from './part-model.ts'
export { toolResultBlockLabel, toolResultBlocks, toolResultHasMedia, toolResultText } from './tool-result-content.ts'
export { decodePart, encodePart, marshalParts, PartC, type PartDefinition, partTypes, registerPart, unmarshalParts } from './part-registry.ts'
export {
  file,
  finish,
  image,
  isCompactionBoundary,
  isFile,
  isFinish,
  isFinished,
  isImage,
  isProviderPart,
  isReasoning,
  isText,
  isToolCall,
  isToolResult,
  providerPart,
  reasoning,
  text,
  toolCall,
  toolResult,
} from './part-make.ts'
export { hasKind, hasRole, images, isEmpty, isInternal, reasoningParts, reasoningText, textContent, toolCalls, toolResults } from './accessors.ts'
export {
  decodeMessage,
  decodeMessages,
  encodeMessage,
  encodeMessages,
  type Kind,
  makeMessage,
  type Message,
  MessageC,
  type MessageFields,
  type Messages,
  type MessageWire,
  parseMessages,
  textMessage,
} from './message.ts'
export { addPart, getMeta, mapParts, MessageEq, setMeta, upsertToolCall } from './edit.ts'
export { isCompactionSummary } from './compaction-mark.ts'
