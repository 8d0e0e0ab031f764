/**
 * A long agent history for the read-back tests and the bench: turns of a user question, an
 * assistant tool call and a tool result of varied size and text (ASCII, accented, CJK and emoji, so
 * that byte pages meet every UTF-8 width), with a large write every so often (arguments a prune cuts).
 */
import type { Message } from '../../src/message/message.ts'

const WORDS = ['cart', 'total', 'checkout', 'é', '合計', '🛒', 'price', 'tax', 'Error:', 'ENOENT', 'ok', 'rounding', 'ü', '\n']

/** `n` messages (a multiple of 3: user, assistant, tool), the same for the same `n`. */
export const readBackHistory = (n: number): Message[] => {
  const out: Message[] = []
  let seed = 7
  const next = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
  for (let t = 0; out.length < n; t++) {
    const size = 200 + (next() % 3000)
    let body = `run ${t}: `
    while (body.length < size) body += WORDS[next() % WORDS.length] + ' '
    const write = t % 50 === 7
    const args = write ? JSON.stringify({ path: `src/f${t}.ts`, content: body.repeat(4) }) : JSON.stringify({ cmd: `npm test -- f${t}` })
    out.push(
      { id: `u${t}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: `question ${t}` }] },
      {
        id: `a${t}`,
        role: 'assistant',
        kind: 'normal',
        parts: [{ type: 'tool_call', id: `call_${t}`, name: write ? 'write' : 'bash', arguments: args, status: 'complete' }],
      },
      {
        id: `t${t}`,
        role: 'tool',
        kind: 'normal',
        parts: [{ type: 'tool_result', toolCallId: `call_${t}`, name: write ? 'write' : 'bash', content: body, isError: false }],
      },
    )
  }
  return out.slice(0, n)
}
