/**
 * Stream assembly: each provider's streaming events, turned into the conversation builder's
 * lifecycle inputs (`startAssistant`, `appendContent`, `appendThinking`, `setThinkingSignature`,
 * `addRedactedThinking`, `addToolCall`, `appendToolCallArguments`, `addPart`, `setPartFields`,
 * `finish`, `setError`, `finalizeAssistant`), so that a streamed reply becomes a chatfold message through the builder,
 * with the builder's events.
 *
 * An assembler is made per streamed reply. `push` takes one event as the provider documents it
 * (the SDK's event object, or the parsed JSON of one server-sent event) and returns the inputs it
 * means; `end` returns what closes the reply when the stream is over (`finalizeAssistant`, with the
 * output tokens when the stream reported them), unless an event closed it already. The only state
 * kept is what the events do not repeat: which tool call an index (or item) belongs to, whether the
 * reply was opened and closed, and the latest token count. Events of types an assembler does not
 * know (pings, …) and malformed events mean nothing; nothing throws.
 *
 * Stop reasons become chatfold's: `end_turn`, `tool_use`, `max_tokens`, `content_filter`, or the
 * provider's own in lower case.
 *
 * @module
 */
export type { StreamAssembler } from './stream-kit.ts'
export { anthropicStream } from './anthropic/stream.ts'
export { geminiStream } from './gemini/stream.ts'
export { openAIChatStream } from './openai/chat-stream.ts'
export { openAIResponsesStream } from './openai/responses-stream.ts'
