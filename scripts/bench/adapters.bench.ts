/**
 * The provider adapters on the 20,000-message coding-agent history (about 60 MB): each `to…`
 * conversion (with `repair: 'repair'`, so the whole pipeline runs: `forLLM`, the tool-pair check,
 * id rewriting, the conversion), each `from…` decoding of the request it wrote (untrusted JSON, as
 * it would come back from a log or a server), and stream assembly of a long streamed reply.
 */
import * as E from 'fp-ts/Either'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { fromAnthropic } from '../../src/adapters/anthropic/messages-from.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { fromGemini } from '../../src/adapters/gemini/contents-from.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { fromOpenAIChat } from '../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { anthropicStream } from '../../src/adapters/anthropic/stream.ts'
import { type Messages } from '../../src/message/message.ts'
import { makeBuilderState } from '../../src/builder/state.ts'
import { replayBuilderInputs } from '../../src/builder/step.ts'
import { benchHistory, measure, ms, table } from './lib.ts'

type To = (o: { readonly repair: 'repair' }) => (ms: Messages) => E.Either<unknown, { readonly request: unknown }>
type From = (u: unknown) => E.Either<unknown, Messages>

const adapters: ReadonlyArray<readonly [string, To, From]> = [
  ['OpenAI Chat Completions', toOpenAIChat as To, fromOpenAIChat],
  ['OpenAI Responses', toOpenAIResponses as To, fromOpenAIResponses],
  ['Anthropic Messages', toAnthropic as To, fromAnthropic],
  ['Gemini', toGemini as To, fromGemini],
  ['AI SDK ModelMessage', toModelMessages as To, fromModelMessages],
]

/** The events of one long streamed Anthropic reply: thinking, text and a tool call, in small deltas. */
const longReply = (deltas: number): ReadonlyArray<unknown> => {
  const events: unknown[] = [{ type: 'message_start', message: { id: 'msg_bench', model: 'claude-sonnet-5-5', content: [], usage: { output_tokens: 1 } } }]
  events.push({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } })
  for (let i = 0; i < deltas; i++) events.push({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: `step ${i} ` } })
  events.push({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBbench' } }, { type: 'content_block_stop', index: 0 })
  events.push({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } })
  for (let i = 0; i < deltas; i++) events.push({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: `word${i} ` } })
  events.push({ type: 'content_block_stop', index: 1 }, {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_bench', name: 'write', input: {} },
  })
  for (let i = 0; i < deltas; i++)
    events.push({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: i === 0 ? '{"text":"' : 'x' } })
  events.push({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"}' } }, { type: 'content_block_stop', index: 2 })
  events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: deltas * 3 } }, { type: 'message_stop' })
  return events
}

export default async (): Promise<void> => {
  const history = benchHistory()
  const rows: string[][] = []
  for (const [name, to, from] of adapters) {
    const converted = to({ repair: 'repair' })(history)
    if (E.isLeft(converted)) throw new Error(`${name}: ${JSON.stringify(converted.left)}`)
    const json = JSON.parse(JSON.stringify(converted.right.request)) as unknown
    const out = await measure(() => to({ repair: 'repair' })(history), { runs: 7, warmup: 1 })
    const back = await measure(() => from(json), { runs: 7, warmup: 1 })
    rows.push([name, ms(out.median), ms(out.p95), ms(back.median), ms(back.p95)])
  }
  table(`Adapters on ${history.length.toLocaleString('en')} messages (ms)`, ['target', 'to… median', 'to… p95', 'from… median', 'from… p95'], rows)

  const events = longReply(2_000)
  const push = await measure(
    () => {
      const a = anthropicStream()
      const inputs = events.flatMap((e) => a.push(e))
      return [...inputs, ...a.end()]
    },
    { runs: 15, warmup: 2 },
  )
  const a = anthropicStream()
  const inputs = [...events.flatMap((e) => a.push(e)), ...a.end()]
  const fold = await measure(() => replayBuilderInputs(inputs)(makeBuilderState()), { runs: 15, warmup: 2 })
  table(`Stream assembly: one Anthropic reply of ${events.length.toLocaleString('en')} events (ms)`, ['step', 'median', 'p95', 'per event (µs)'], [
    ['anthropicStream: events → builder inputs', ms(push.median), ms(push.p95), ((push.median * 1000) / events.length).toFixed(2)],
    ['builder: inputs → message', ms(fold.median), ms(fold.p95), ((fold.median * 1000) / events.length).toFixed(2)],
  ])
}
