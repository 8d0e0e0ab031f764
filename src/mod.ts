/**
 * chatfold: a provider-agnostic data model and history toolkit for LLM chat and agent conversations.
 *
 * @example
 * import { pipe } from 'fp-ts/function'
 * import { textMessage, textContent } from 'chatfold'
 * pipe(textMessage('user', 'What is Go?'), textContent) // 'What is Go?'
 *
 * @module
 */
export * from './failure.ts'
export * from './role.ts'
export * from './part.ts'
export * from './message.ts'
export * from './message-edit.ts'
// `reasoning` is both the part constructor (part.ts) and the message accessor (message.ts): the flat
// entry keeps the constructor under that name and the accessor as `reasoningParts`.
export { reasoning } from './part.ts'
export { reasoning as reasoningParts } from './message.ts'
export * from './content.ts'
export * from './messages/codec.ts'
export * from './messages/views.ts'
export * from './messages/pairs.ts'
export * from './messages/edit.ts'
export * from './messages/prune.ts'
export * from './messages/render.ts'
export * from './messages/render-html.ts'
export * from './tokens.ts'
export * from './compaction.ts'
export * from './conversation.ts'
export * from './chat.ts'
export * from './engine/index.ts'
export * from './store/input.ts'
export * from './store/state.ts'
export * from './store/query.ts'
export * from './store/snapshot.ts'
export * from './store/persist.ts'
export * from './store/simulator.ts'
export * from './store/store.ts'
export * from './store/log.ts'
export * from './store/durable.ts'
export * from './store/failure.ts'
export * from './adapters/index.ts'
export * from './http.ts'
export * from './http-durable.ts'
export { LOOPBACK_HOSTS, generateToken, isLoopback, sameSecret } from './http-guard.ts'
