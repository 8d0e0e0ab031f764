/**
 * The conversation builder and the Chat container: streaming a reply chunk by chunk, a whole agent
 * turn on top of the 20,000-message history, reading streamed tool arguments with
 * `parsePartialJSON` after every fragment, and Chat appends with waiting consumers.
 */
import { createBuilder } from '../../src/builder/builder.ts'
import { parsePartialJSON } from '../../src/builder/partial-json.ts'
import { type BuilderEvent } from '../../src/builder/types.ts'
import { createChat } from '../../src/builder/chat.ts'
import { type Message, textMessage } from '../../src/message/message.ts'
import { benchHistory, measure, ms, table } from './lib.ts'

const CHUNKS = 4_000

/** One streamed reply: thinking, text, and two tool calls whose arguments arrive in 200 fragments each. */
const streamReply = (): number => {
  let events = 0
  const b = createBuilder({ sink: () => void events++, idPrefix: 'b' })
  b.startAssistant({ model: 'bench' })
  for (let i = 0; i < CHUNKS / 4; i++) b.appendThinking('step by step ')
  for (let i = 0; i < CHUNKS / 4; i++) b.appendContent('token ')
  for (const id of ['c1', 'c2']) {
    b.addToolCall({ id, name: 'write_file' })
    b.appendToolCallArguments({ id, fragment: '{"path":"src/a.ts","content":"' })
    for (let i = 0; i < CHUNKS / 4 - 2; i++) b.appendToolCallArguments({ id, fragment: 'const x = 1;\\n' })
    b.appendToolCallArguments({ id, fragment: '"}' })
  }
  b.finish('tool_use')
  b.finalizeAssistant({ tokens: { total: 5_000 } })
  return events
}

export default async (): Promise<void> => {
  const history = benchHistory()
  const rows: string[][] = []

  const stream = await measure(streamReply, { runs: 15 })
  rows.push([
    `stream one reply: ${CHUNKS} chunks (thinking, text, 2 tool calls), events to a sink`,
    ms(stream.median),
    ms(stream.p95),
    `${((stream.median * 1000) / CHUNKS).toFixed(2)} µs/chunk`,
  ])

  // an agent turn on top of a long history: nothing per chunk depends on the history's length
  const b = createBuilder({ idPrefix: 't' })
  b.restore(history)
  let turn = 0
  const agentTurn = () => {
    turn++
    b.addUserMessage({ text: 'next step please' })
    b.startAssistant()
    for (let i = 0; i < 50; i++) b.appendContent('word ')
    b.addToolCall({ id: `a${turn}`, name: 'read', arguments: '{"path":"a"}' })
    b.addToolCall({ id: `b${turn}`, name: 'grep', arguments: '{"q":"b"}' })
    b.finalizeAssistant()
    b.startToolCall(`a${turn}`)
    b.completeToolCall({ id: `a${turn}`, result: 'contents' })
    b.completeToolCall({ id: `b${turn}`, result: 'matches' })
  }
  const turnStats = await measure(agentTurn, { runs: 50, warmup: 5 })
  rows.push([
    `one agent turn (user, 50 chunks, 2 calls, 2 results) on ${history.length.toLocaleString('en')} messages`,
    ms(turnStats.median),
    ms(turnStats.p95),
    `${b.len().toLocaleString('en')} messages after`,
  ])

  const replay: BuilderEvent[] = []
  const r = createBuilder({ sink: (e) => replay.push(e) })
  const restoreStats = await measure(() => r.restore(history), { runs: 15 })
  rows.push([`restore ${history.length.toLocaleString('en')} messages (no copy: the history is immutable)`, ms(restoreStats.median), ms(restoreStats.p95), ''])

  // streamed tool arguments, re-read after every fragment as a UI would
  const content = 'export const answer = 42;\n'.repeat(2_000) // about 52 KB
  const full = JSON.stringify({ path: 'src/answer.ts', content })
  const fragments = Array.from({ length: 500 }, (_, i) => full.slice(Math.floor((i * full.length) / 500), Math.floor(((i + 1) * full.length) / 500)))
  const partial = await measure(() => {
    let text = ''
    for (const f of fragments) {
      text += f
      parsePartialJSON(text)
    }
  }, { runs: 10 })
  rows.push([
    `parsePartialJSON after each of 500 fragments of a ${(full.length / 1000).toFixed(0)} KB argument`,
    ms(partial.median),
    ms(partial.p95),
    `${((partial.median * 1000) / 500).toFixed(0)} µs/fragment`,
  ])

  // Chat: 20,000 single appends, with 10 consumers in the wait/since style
  const msgs: Message[] = Array.from({ length: 20_000 }, (_, i) => textMessage('assistant', `m${i}`, { id: `m${i}` }))
  const chatStats = await measure(async () => {
    const c = createChat()
    const consumers = Array.from({ length: 10 }, async () => {
      let cursor = 0
      while (cursor < msgs.length) {
        await c.wait(cursor)
        cursor += c.since(cursor).length
      }
    })
    for (let i = 0; i < msgs.length; i++) {
      c.append(msgs[i] as Message)
      if (i % 100 === 0) await Promise.resolve()
    }
    await Promise.all(consumers)
  }, { runs: 10 })
  rows.push(['Chat: 20,000 appends, 10 consumers waiting (wait + since)', ms(chatStats.median), ms(chatStats.p95), ''])

  table('builder and chat (ms)', ['operation', 'median', 'p95', 'note'], rows)
}
