import { DefaultChatTransport, simulateReadableStream, streamText, UI_MESSAGE_STREAM_HEADERS, type UIMessageChunk } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { keepTextStream, replayTextStream } from '../../src/streams/answer.ts'
import { openStreamsHandler } from '../../src/streams/handler.ts'
import { memoryStreamsStorage } from '../../src/streams/log.ts'

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 3, text: 3, reasoning: 0 } }

describe("the AI SDK's resume (useChat({ resume: true })) against replayTextStream", () => {
  it("the SDK's own transport reconnects mid-answer and reads the whole answer; once it ended, there is nothing to resume", async () => {
    const streams = await openStreamsHandler(memoryStreamsStorage())
    // a model that waits for the test between its chunks: the page reloads while it is held
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't1' },
            { type: 'text-delta', id: 't1', delta: 'Hello ' },
          ],
        }).pipeThrough(
          new TransformStream({
            flush: async (controller) => {
              await held
              controller.enqueue({ type: 'text-delta', id: 't1', delta: 'again.' })
              controller.enqueue({ type: 'text-end', id: 't1' })
              controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage })
            },
          }),
        ),
      }),
    })
    let kept: Promise<void> = Promise.resolve()
    const response = streamText({ model, prompt: 'Hi' }).toUIMessageStreamResponse({
      consumeSseStream: ({ stream }) => {
        kept = keepTextStream(streams, '/ai/chat-1', stream)
      },
    })
    const page = response.body?.getReader()
    const first = new TextDecoder().decode((await page?.read())?.value)
    expect(first).toContain('"type":"start"')
    await page?.cancel()

    // the routes useChat's transport asks: GET <api>/<chat id>/stream
    const route = (url: string): Promise<Response> => {
      const m = /\/api\/chat\/([^/]+)\/stream$/.exec(url)
      return m === null ? Promise.resolve(new Response(null, { status: 404 })) : replayTextStream(streams, `/ai/${m[1]}`, UI_MESSAGE_STREAM_HEADERS)
    }
    const transport = new DefaultChatTransport({ api: 'http://localhost/api/chat', fetch: (input) => route(String(input)) })
    const resumed = await transport.reconnectToStream({ chatId: 'chat-1' })
    expect(resumed).not.toBeNull()
    const chunks: UIMessageChunk[] = []
    const reading = (async () => {
      const reader = (resumed as ReadableStream<UIMessageChunk>).getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        chunks.push(r.value)
        if (r.value.type === 'text-delta' && r.value.delta === 'Hello ') release()
      }
    })()
    await reading
    await kept
    expect(chunks.filter((c) => c.type === 'text-delta').map((c) => (c as { delta: string }).delta)).toEqual(['Hello ', 'again.'])
    expect(chunks[0]?.type).toBe('start')
    expect(chunks.at(-1)?.type).toBe('finish')
    expect(await transport.reconnectToStream({ chatId: 'chat-1' })).toBeNull()
  })
})
