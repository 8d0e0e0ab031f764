/**
 * Type-level checks, run by `tsc` (`npm run typecheck`): the summarisers and the Agents SDK session
 * take an SDK client by its shape, not by the SDK's class. So the SDK's own client goes, a plain
 * object with just the methods used goes, and so does a second declaration of the client class, as
 * TypeScript sees an `openai` package loaded twice (as CommonJS and as ESM): two declarations of
 * one class with private members never fit each other by name (TS2719), but both fit by shape.
 */
import OpenAI from 'openai'
import Anthropic from '@anthropic-ai/sdk'
import { openAICompaction, type OpenAICompactionClient, openAISummarizer, type OpenAISummarizerClient } from '../../src/summarize/openai.ts'
import { anthropicCompaction, type AnthropicCompactionClient, anthropicSummarizer, type AnthropicSummarizerClient } from '../../src/summarize/anthropic.ts'
import type { SessionCompactionOptions } from '../../src/openai-agents/mod.ts'

type Assert<T extends true> = T
type Assignable<A, B> = [A] extends [B] ? true : false

/** The OpenAI client as a second copy of the package declares it: the same members, a private field of its own. */
declare class OtherOpenAI {
  #private: unknown
  chat: OpenAI['chat']
  responses: OpenAI['responses']
}
declare class OtherAnthropic {
  #private: unknown
  messages: Anthropic['messages']
  beta: Anthropic['beta']
}

export type Checks = [
  // the SDKs' own clients
  Assert<Assignable<OpenAI, OpenAISummarizerClient>>,
  Assert<Assignable<OpenAI, OpenAICompactionClient>>,
  Assert<Assignable<Anthropic, AnthropicSummarizerClient>>,
  Assert<Assignable<Anthropic, AnthropicCompactionClient>>,
  // a second declaration of each (CommonJS beside ESM): not the class by name, but the same shape
  Assert<Assignable<OtherOpenAI, OpenAI> extends true ? false : true>,
  Assert<Assignable<OtherOpenAI, OpenAISummarizerClient>>,
  Assert<Assignable<OtherOpenAI, OpenAICompactionClient>>,
  Assert<Assignable<OtherOpenAI, NonNullable<SessionCompactionOptions['openai']>>>,
  Assert<Assignable<OtherAnthropic, AnthropicSummarizerClient>>,
  Assert<Assignable<OtherAnthropic, AnthropicCompactionClient>>,
]

// a plain object with just the methods used
const chatOnly = {
  chat: {
    completions: {
      create: async (body: { model: string; messages: Array<{ role: string; content: string }> }) => ({
        choices: [{ message: { content: `summary of ${body.messages.length}` } }],
      }),
    },
  },
  responses: { create: async () => ({ output_text: 'summary' }) },
}
openAISummarizer({ client: chatOnly, model: 'gpt-5-mini' })
openAICompaction({ client: { responses: { compact: async (_body: { model: string }) => ({ output: [] }) } }, model: 'gpt-5.4' })
anthropicSummarizer({ client: { messages: { create: async () => ({ content: [{ type: 'text', text: 'summary' }] }) } }, model: 'claude-haiku-4-5' })
anthropicCompaction({ client: { beta: { messages: { create: async () => ({ stop_reason: 'compaction', content: [] }) } } }, model: 'claude-sonnet-4-6' })

declare const other: OtherOpenAI
openAISummarizer({ client: other, model: 'gpt-5-mini', api: 'responses' })
