/**
 * Conformance with the AI SDK's own validators, on generated histories: what `toModelMessages`
 * writes parses with the SDK's exported `modelMessageSchema` and goes through `generateText` (its
 * prompt standardisation and tool-pairing check) with the SDK's mock model; what `toUIMessages`
 * writes passes `validateUIMessages`, and `fromUIMessages` gives back every text, call, result,
 * error flag, medium and signature. Node only (the SDK is a dev dependency).
 */
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { generateText, modelMessageSchema, type UIMessage, validateUIMessages } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { fromUIMessages } from '../../../src/adapters/ai-sdk/ui-messages-from.ts'
import { toUIMessages } from '../../../src/adapters/ai-sdk/ui-messages.ts'
import { toModelMessages } from '../../../src/adapters/ai-sdk/model-messages.ts'
import { isInternal } from '../../../src/message/accessors.ts'
import { type Messages } from '../../../src/message/message.ts'
import { conversationArb, messagesArb } from '../../support/arbitraries.ts'

const RUNS = { numRuns: 60 }

const mock = () =>
  new MockLanguageModelV3({
    // every URL counts as one the model takes itself, so the SDK never downloads (no network)
    supportedUrls: { '*/*': [/.*/] },
    doGenerate: {
      content: [{ type: 'text', text: 'ok' }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
      warnings: [],
    },
  })

/** What a history says, part by part, in order: the facts a conversion must keep. */
const facts = (ms: Messages): ReadonlyArray<string> =>
  ms
    .filter((m) => !isInternal(m))
    .flatMap((m) =>
      m.parts.flatMap((p): string[] => {
        switch (p.type) {
          case 'text':
            return [`text ${p.text}`]
          case 'tool_call':
            return [`call ${p.id} ${p.name} ${JSON.stringify(JSON.parse(p.arguments))}`]
          case 'tool_result':
            return [`result ${p.toolCallId} ${p.isError} ${p.content}`]
          case 'reasoning':
            return [`reasoning ${p.redacted === true ? 'redacted' : ''} ${p.text} ${p.signature ?? ''}`]
          case 'image':
          case 'file':
            return [`${p.type} ${p.url ?? ''} ${p.data === undefined ? '' : Buffer.from(p.data).toString('base64')}`]
          default:
            return []
        }
      })
    )

describe('AI SDK validators on generated histories', () => {
  it('toModelMessages writes what modelMessageSchema accepts and generateText takes', async () => {
    await fc.assert(
      fc.asyncProperty(messagesArb, async (h) => {
        const r = toModelMessages({ repair: 'repair', foreignReasoning: 'text' })(h)
        if (E.isLeft(r)) throw new Error(`conversion failed: ${JSON.stringify(r.left)}`)
        const { messages } = r.right.request
        for (const m of messages) expect(modelMessageSchema.safeParse(m).success).toBe(true)
        if (messages.length === 0) return
        const model = mock()
        await generateText({ model, messages, allowSystemInMessages: true })
        expect(model.doGenerateCalls).toHaveLength(1)
      }),
      RUNS,
    )
  })

  it('toUIMessages writes what validateUIMessages accepts, and fromUIMessages keeps every fact of a conversation', async () => {
    await fc.assert(
      fc.asyncProperty(conversationArb, async (h) => {
        const r = toUIMessages()(h)
        if (E.isLeft(r)) throw new Error(`conversion failed: ${JSON.stringify(r.left)}`)
        const ui = r.right.request.messages
        if (ui.length > 0) await validateUIMessages({ messages: ui as UIMessage[] })
        const back = fromUIMessages({ messages: ui })
        if (E.isLeft(back)) throw new Error(`decoding failed: ${JSON.stringify(back.left)}`)
        const omitted = new Set(r.right.report.notes.flatMap((n) => ('messageId' in n ? [n.messageId] : [])))
        expect(facts(back.right)).toEqual(facts(h.filter((m) => !omitted.has(m.id))))
        // and a second trip changes nothing
        const again = toUIMessages()(back.right)
        expect(E.isRight(again) && again.right.request.messages).toEqual(ui)
      }),
      RUNS,
    )
  })
})
