/**
 * The explorer's Markdown view renders only the start of a history, a few messages at a time:
 * what it shows is what `renderMarkdown` of the whole history starts with.
 */
import { describe, expect, it } from 'vitest'
import { renderMarkdown } from '../../src/history/render.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'
import { sampleSession } from '../../sample/session.ts'
import { markdownStart } from '../../web/markdown.ts'

const noPause = (): Promise<void> => Promise.resolve()

describe('markdownStart', () => {
  it('starts as renderMarkdown of the whole history does, over steps of any size', async () => {
    const ms = sampleSession({ messages: 600, seed: 3 })
    const whole = renderMarkdown(ms)
    for (const step of [1, 3, 16, 100]) {
      const { text, messages } = await markdownStart(ms, 40_000, step, noPause)
      expect(text.length).toBeGreaterThanOrEqual(40_000)
      expect(messages).toBeLessThan(ms.length)
      expect(whole.startsWith(text)).toBe(true)
    }
  })

  it('renders all of a short history, equal to renderMarkdown, and pauses between steps', async () => {
    const ms = [
      textMessage('user', 'List the files'),
      makeMessage({ role: 'assistant', parts: [toolCall({ id: 'c1', name: 'ls', arguments: '{}' }), toolCall({ id: 'c2', name: 'pwd', arguments: '{}' })] }),
      makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'README.md' })] }),
      makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c2', content: '/work' })] }),
      textMessage('assistant', 'One file.'),
    ]
    let pauses = 0
    const { text, messages } = await markdownStart(ms, 1_000_000, 1, () => Promise.resolve(void pauses++))
    expect(text).toBe(renderMarkdown(ms))
    expect(messages).toBe(ms.length)
    // the call's two results go with it: user, assistant with both results, assistant
    expect(pauses).toBe(3)
  })
})
