/**
 * An agent loop kept by an engine session on a small window, the model reporting its true usage
 * (counted with `o200k_base`) in each reply's `metadata.usage`: before each request the loop asks
 * `shouldCompact` and compacts when told. No prompt may pass the window, on any content class an
 * estimate can read under.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine/client.ts'
import type { EncodingName } from '../../src/tokenizer/load.ts'
import { countModelRequest } from '../../src/counting/count.ts'
import { forLLM } from '../../src/history/views.ts'
import { makeMessage, type Messages, textMessage } from '../../src/message/message.ts'
import { text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { type ContentClass, contentSample } from '../../sample/content-classes.ts'

const WINDOW = 12_000
const RESERVE = 1_000
const LIMIT = WINDOW - RESERVE
const STEPS = 30

/** The true input tokens of a prompt: o200k_base's count of what reaches the model. */
const trueTokens = (ms: Messages): number =>
  countModelRequest('openai', { estimate: (s) => countTokens(s, { disallowedSpecial: new Set<string>() }) })({ messages: forLLM(ms) }).total

const loop = async (cls: ContentClass, encoding: EncodingName | undefined): Promise<ReadonlyArray<number>> => {
  const engine = createEngine({ mode: 'inline', ...(encoding === undefined ? {} : { encoding }) })
  try {
    const session = await engine.open(`loop-${cls}`, [
      textMessage('system', 'You are a coding agent.'),
      textMessage('user', 'Read the output of every run and tell me which one failed.'),
    ])
    const seen: number[] = []
    for (let step = 1; step <= STEPS; step++) {
      if (await session.shouldCompact({ contextWindow: WINDOW, reserveTokens: RESERVE }))
        await session.compact({ contextWindow: WINDOW, reserveTokens: RESERVE })
      const prompt = await session.snapshot()
      const input = trueTokens(prompt)
      seen.push(input)
      const id = `call_${step}`
      await session.append([
        makeMessage({
          role: 'assistant',
          parts: [text('Reading the next run.'), toolCall({ id, name: 'read_run', arguments: JSON.stringify({ step }) })],
          metadata: { usage: { input, output: 12 } },
        }),
        makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: id, name: 'read_run', content: contentSample(cls, step, 3_000) })] }),
      ])
    }
    return seen
  } finally {
    engine.dispose()
  }
}

describe('an engine session within the window, by the model’s own count', () => {
  // The default encoding is o200k_base; \`heuristic\` (characters / 4) reads a quarter to a half of
  // it on emoji and base64, and the session's decisions anchor on the reported usage instead. (On
  // rare CJK it reads an eighth, and a compaction's summary, sized by that estimate, does not fit.)
  const cases = [
    ...(['emoji', 'cjk-rare', 'base64', 'json', 'code'] as const).map((cls) => [cls, undefined] as const),
    ...(['emoji', 'base64', 'json', 'code'] as const).map((cls) => [cls, 'heuristic'] as const),
  ]
  for (const [cls, encoding] of cases)
    it(`tool output of ${cls}, ${encoding ?? 'the default encoding'}`, async () => {
      const seen = await loop(cls, encoding)
      expect(seen).toHaveLength(STEPS)
      expect(Math.max(...seen)).toBeGreaterThan(LIMIT / 2) // the loop does fill the window
      expect(seen.filter((n) => n > LIMIT)).toEqual([])
    })
})
