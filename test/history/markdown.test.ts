import { describe, expect, it } from 'vitest'
import { demoteHeadings } from '../../src/history/_markdown.ts'
import { renderMarkdown, renderMarkdownWith } from '../../src/history/render.ts'
import { msg, think, txt } from './fixtures.ts'

describe('demoteHeadings', () => {
  const d = demoteHeadings(2)
  it('moves ATX headings down, up to level 6', () => {
    expect(d('# Cause\n\nText\n## Fix\n###### Deep')).toBe('### Cause\n\nText\n#### Fix\n###### Deep')
    expect(d('   # Indented')).toBe('   ### Indented')
    expect(d('#\n#hashtag')).toBe('###\n#hashtag')
  })
  it('turns setext headings into ATX ones of the level they had, plus two', () => {
    expect(d('Title\n=====\n\nPart\n---')).toBe('### Title\n\n#### Part')
    expect(d('A long\ntitle\n===')).toBe('### A long title')
  })
  it('leaves code, list items before a rule, and rules alone', () => {
    const code = '```md\n# not a heading\nx\n===\n```\n~~~\n# also not\n~~~'
    expect(d(code)).toBe(code)
    expect(d('    # indented code')).toBe('    # indented code')
    expect(d('- item\n---')).toBe('- item\n---')
    expect(d('\n---\ntext')).toBe('\n---\ntext')
  })
  it('gives text with no heading back as it is, and does nothing for a depth of 0', () => {
    const s = 'plain\n\ntext'
    expect(d(s)).toBe(s)
    expect(demoteHeadings(0)('# x')).toBe('# x')
  })
})

describe('renderMarkdown: models, times and headings inside messages', () => {
  it('puts the model and time under the heading, when a message has them', () => {
    const a = msg('a', 'assistant', [txt('Done.')], 'normal', { model: 'claude-sonnet-4-5', createdAt: '2026-03-02T10:00:09.000Z' })
    const u = msg('u', 'user', [txt('Go')], 'normal', { createdAt: '2026-03-02T10:00:05.000Z' })
    expect(renderMarkdown([u, a])).toBe(
      '## User\n\n*2026-03-02 10:00:05 UTC*\n\nGo\n\n## Assistant\n\n*claude-sonnet-4-5 · 2026-03-02 10:00:09 UTC*\n\nDone.\n',
    )
    expect(renderMarkdown([msg('x', 'assistant', [txt('ok')], 'normal', { model: 'a_b*c' })])).toContain('*a\\_b\\*c*')
    expect(renderMarkdown([msg('r', 'user', [txt('<system-reminder>Run tests</system-reminder>')], 'synthetic', { metadata: { origin: 'system-reminder' } })]))
      .toMatch(/^## User\n\n\*system-reminder\*\n/)
  })
  it("keeps a message's headings below the export's sections, in its text and its reasoning", () => {
    const md = renderMarkdownWith({ reasoning: 'include' })([msg('a', 'assistant', [think('# Plan'), txt('# Cause\n\nRounding.\n\nFix\n===')])])
    expect(md.split('\n').filter((l) => /^#{1,2} /.test(l))).toEqual(['## Assistant'])
    expect(md).toContain('### Cause')
    expect(md).toContain('### Fix')
    expect(md).toContain('> **Thinking:** ### Plan')
  })
})

describe('renderMarkdown: sub-conversations', () => {
  it('labels a sub-conversation message with its role, not as a notice', () => {
    const md = renderMarkdown([
      msg('s1', 'user', [txt('Find rounding')], 'display', { metadata: { subagent: { toolCallId: 'c1' } } }),
      msg('n', 'assistant', [txt('Saved')], 'display'),
    ])
    expect(md).toBe('> **User (sub-conversation):** Find rounding\n\n> **Notice:** Saved\n')
  })
})
