/**
 * The chat store: validated chat inputs (text, images, audio, video), many conversations with
 * history limits, indexes and queries, a simulated event queue, a durable log with snapshots behind
 * one small storage interface, and the HTTP handler that serves it with tokens and origin checks.
 * The runtime backends are in `chatfold/node` (files), `chatfold/deno` (Deno KV) and
 * `chatfold/cloudflare` (Durable Objects).
 *
 * @example
 * import { createChatStore } from 'chatfold/store'
 * const store = createChatStore({ startTime: '2024-03-15T10:00:00Z' })
 * store.submit({ role: 'user', content: "What's the weather?" })
 * store.state().updateCount // 1
 *
 * @module
 */
export { type ChatStore, type ChatStoreJournal, createChatStore } from './store.ts'
export {
  affectedEntities,
  type ChatInput,
  ChatInputC,
  type ChatInputFields,
  type ChatRole,
  formatInput,
  makeChatInput,
  validateInput,
  type ValidInput,
} from './input.ts'
export { type ChatContent, ChatContentC, type ContentBlock, decodeChatContent, fromChatContent, toChatContent, toChatContentNoted } from './content.ts'
export type { ChatState, ConversationMetadata, StoreFailure } from './core.ts'
export { applyInput, applyInputs, type ChatStateOptions, conversationIds, emptyState, getConversationMetadata, restrictTo, validateState } from './state.ts'
export { forkConversation, type ForkRequest } from './fork.ts'
export { type ChatQuery, ChatQueryC, decodeQuery, getConversation, getMessageById, getRecentMessages, query } from './query.ts'
export { type ChatMessage, type ChatSnapshot, ChatSnapshotC, type ChatSnapshotWire, fromSnapshot, toChatMessages, toSnapshot } from './snapshot.ts'
export { fromStoreMessages, toStoreMessages } from './persist.ts'
export {
  advanceBy,
  advanceTo,
  createSimulator,
  eventHistory,
  type EventLimits,
  formatStoreFailure,
  pendingEvents,
  recentEvents,
  scheduleEvent,
  type SimAdvance,
  type SimEvent,
  type SimEventStatus,
  type SimStep,
  type Simulator,
  type SimulatorOptions,
  submitEvent,
} from './simulator.ts'
export {
  type DurableChatStore,
  type DurableStoreOptions,
  type LogEntry,
  memoryStorage,
  openDurableStore,
  type Recovery,
  type StoredLog,
  type StoredSnapshot,
  type StoreStorage,
} from './durable.ts'
export { isStoreError, StoreError, type StoreErrorCode } from './failure.ts'
export { type AuthDecision, type ChatHandlerOptions, createChatHandler } from './http.ts'
export { durableChatHandler } from './http-durable.ts'
export { generateToken } from './http-guard.ts'
