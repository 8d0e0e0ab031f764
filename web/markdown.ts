/**
 * The start of a history as Markdown without rendering all of it: what the explorer shows, a few
 * messages rendered at a time so that the page keeps its frames.
 */
import { renderMarkdown } from '../src/history/render.ts'
import { type Message, type Messages } from '../src/message/message.ts'

/**
 * The start of `renderMarkdown(ms)`, at least `chars` characters of it where the history has them:
 * `step` messages rendered at a time, each with the tool results that follow it (a result is
 * rendered under its call), joined as `renderMarkdown` joins messages, `pause()` awaited between
 * two steps. Answers the text and how many messages it rendered.
 */
export const markdownStart = async (ms: Messages, chars: number, step: number, pause: () => Promise<void>): Promise<{ readonly text: string; readonly messages: number }> => {
  let text = ''
  let end = 0
  while (end < ms.length && text.length < chars) {
    let to = Math.min(ms.length, end + Math.max(1, step))
    while (to < ms.length && (ms[to] as Message).role === 'tool') to++
    const part = renderMarkdown(ms.slice(end, to))
    text += text === '' || part === '' ? part : `\n${part}`
    end = to
    await pause()
  }
  return { text, messages: end }
}
