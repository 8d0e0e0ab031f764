/**
 * A Web Worker of `npm run bench browser`'s "counting alone": it counts the messages it was handed
 * beforehand (its JIT warmed on others), with nothing sent while it counts, using the engine's own
 * definition (`tokenBreakdown`) and tables. Messages: `{ warm, messages }` hands them over (answered
 * with 0); `{}` counts them (answered with `[tokens, ms]`).
 */
import type { Message } from '../../src/message/message.ts'
import { tokenBreakdown } from '../../src/tokens/message-tokens.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'

const estimate = await loadEstimator('o200k_base')
let messages: ReadonlyArray<Message> = []

const count = (ms: ReadonlyArray<Message>): number => {
  let total = 0
  for (const m of ms) total += tokenBreakdown(estimate, m).total
  return total
}

self.onmessage = (e: MessageEvent<{ readonly warm?: ReadonlyArray<Message>; readonly messages?: ReadonlyArray<Message> }>) => {
  if (e.data.warm !== undefined) {
    count(e.data.warm)
    messages = e.data.messages ?? []
    self.postMessage(0)
  } else {
    const t0 = performance.now()
    const tokens = count(messages)
    self.postMessage([tokens, performance.now() - t0])
  }
}
self.postMessage(0)
