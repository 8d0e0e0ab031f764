/**
 * chatfold without the tokenizer: everything of the main entry that needs no byte-pair ranks, for
 * bundles with tight size limits (an edge function, a small page). Token counts come from the
 * synchronous estimators ({@link heuristic}, {@link smartHeuristic}, or any function you pass);
 * what loads an encoding by name is left out: `loadEstimator` and `loadedEstimator`, `compact`
 * (which accepts an encoding name), and the worker engine. A bundle of this entry holds no rank
 * table, with or without code splitting (`npm run check:core` and the size suite check it).
 *
 * @example
 * import { countMessages, smartHeuristic, textMessage } from 'chatfold/lite'
 * countMessages(smartHeuristic)([textMessage('user', 'Hello, world!')])
 *
 * @module
 */
export * from './failure.ts'
export * from './role.ts'
export * from './part.ts'
export * from './message.ts'
export * from './message-edit.ts'
// As in the main entry: the part constructor keeps the name, the message accessor is `reasoningParts`.
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
export * from './tokens/heuristic.ts'
export * from './tokens/guard.ts'
export * from './tokens/count.ts'
export * from './tokens/usage.ts'
export * from './tokens/recorded-usage.ts'
export * from './compaction/summary.ts'
export * from './compaction/plan.ts'
export * from './compaction/transcript.ts'
export * from './compaction/rebuild.ts'
export * from './compaction/extractive.ts'
export * from './compaction/context-edits.ts'
export * from './conversation.ts'
export * from './chat.ts'
export * from './store/input.ts'
export * from './store/state.ts'
export * from './store/query.ts'
export * from './store/snapshot.ts'
export * from './store/persist.ts'
export * from './store/simulator.ts'
export * from './store/store.ts'
export * from './adapters/index.ts'
export * from './http.ts'
export { LOOPBACK_HOSTS, generateToken, isLoopback, sameSecret } from './http-guard.ts'
