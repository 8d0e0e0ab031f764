import { describe, expect, it } from 'vitest'
import { compact } from '../../src/compaction/compact.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import { renderMarkdown } from '../../src/history/render.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { textContent } from '../../src/message/accessors.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { toolCall, toolResult } from '../../src/message/part-make.ts'

const run = (i: number, content: string) => [
  makeMessage({ id: `a${i}`, role: 'assistant', parts: [toolCall({ id: `c${i}`, name: 'bash', arguments: '{"cmd":"npm test"}' })] }),
  makeMessage({ id: `r${i}`, role: 'tool', parts: [toolResult({ toolCallId: `c${i}`, name: 'bash', content, isError: true })] }),
]

describe('extractive summary', () => {
  it('keeps one line per distinct error, with how often it happened, in the order of their last occurrence', async () => {
    const history = [
      textMessage('user', 'Run the tests until they pass.', { id: 'u' }),
      ...run(0, 'exit code 1'),
      ...run(1, 'exit code 1\nstack'),
      ...run(2, 'ENOENT: package.json'),
      ...run(3, 'exit code 1'),
      ...run(4, 'exit code 1'),
      ...run(5, 'exit code 1'),
      ...run(6, 'timeout after 60 s'),
    ]
    const s = await extractiveSummarize(history)
    const errors = s.split('\n').filter((l) => l.includes(' failed: '))
    expect(errors).toEqual(['- bash failed: ENOENT: package.json', '- bash failed: exit code 1 (5 times)', '- bash failed: timeout after 60 s'])
    expect(s).toContain('7 tool calls (bash ×7), 7 tool errors')
  })

  it("nests its sections under the summary message's heading when rendered as Markdown", async () => {
    const history = Array.from({ length: 8 }, (_, i) => [textMessage('user', `Fix step ${i} in src/a.ts.`), textMessage('assistant', `Fixed step ${i}.`)])
      .flat()
    const { messages } = await compact({ summarize: extractiveSummarize, keepRecentTokens: 20 })(history)
    const summary = messages.find(isCompactionSummary)
    expect(summary).toBeDefined()
    const headings = textContent(summary!).split('\n').filter((l) => l.startsWith('#'))
    expect(headings).toEqual(['### Goal', '### Constraints', '### Progress', '### Decisions', '### Next steps', '### Files'])
    const md = renderMarkdown(messages)
    const at = md.indexOf('### Goal')
    const owner = md.slice(0, at).split('\n').filter((l) => /^#{1,6} /.test(l)).at(-1)
    expect(owner).toMatch(/^## (User|System|Assistant)/)
  })
})
