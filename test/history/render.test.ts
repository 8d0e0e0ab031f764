import { describe, expect, it } from 'vitest'
import { render, renderLogLines, renderMarkdown, renderMarkdownWith, renderMessage, renderTranscriptLines } from '../../src/history/render.ts'
import { forExport } from '../../src/history/views.ts'
import { call, everyKind, msg, result, think, txt } from './fixtures.ts'

/** Code blocks of a Markdown document, read the CommonMark way (fence char, length ≥ opener closes). */
const codeBlocks = (md: string): string[] => {
  const out: string[] = []
  let open: { ch: string; len: number; body: string[] } | undefined
  for (const line of md.split('\n')) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (open === undefined) {
      if (m !== null && !(m[1]?.[0] === '`' && (m[2] ?? '').includes('`'))) open = { ch: m[1]?.[0] ?? '`', len: m[1]?.length ?? 3, body: [] }
    } else if (m !== null && m[1]?.[0] === open.ch && (m[1]?.length ?? 0) >= open.len && (m[2] ?? '').trim() === '') {
      out.push(open.body.join('\n'))
      open = undefined
    } else open.body.push(line)
  }
  expect(open).toBeUndefined() // every block is closed
  return out
}

describe('renderMessage and render (plain text)', () => {
  it('labels each role and shows calls and results', () => {
    expect(renderMessage(msg('u', 'user', [txt(' hi ')]))).toBe('[User]: hi\n')
    expect(renderMessage(msg('a', 'assistant', [think('plan', 's'), txt('Reading.'), call('c1', 'read', '{"path":"a"}')]))).toBe(
      '[Assistant thinking]: plan\n[Assistant]: Reading.\n  → read({"path":"a"})\n',
    )
    expect(renderMessage(msg('t', 'tool', [result('c1', 'line 1\nline 2')]))).toBe('  ← read result:\n    line 1\n    line 2\n')
  })
  it('renders a bookmark as a divider, a notice as such, metadata as nothing', () => {
    expect(renderMessage(msg('b', 'user', [txt('Milestone 1')], 'bookmark'))).toBe('=== Milestone 1 ===\n')
    expect(renderMessage(msg('d', 'assistant', [txt('Saved')], 'display'))).toBe('[Notice]: Saved\n')
    expect(renderMessage(msg('m', 'user', [], 'metadata', { metadata: { a: 1 } }))).toBe('')
  })
  it('shows images as references', () => {
    const m = msg('u', 'user', [txt('see'), { type: 'image', url: 'https://x.test/a.png' }, { type: 'image', data: new Uint8Array(3), mediaType: 'image/png' }])
    expect(renderMessage(m)).toBe('[User]: see\n[image: https://x.test/a.png]\n[image: image/png, 3 bytes]\n')
  })
  it('render concatenates the messages', () => {
    expect(render(everyKind)).toBe(everyKind.map(renderMessage).join(''))
    expect(render([])).toBe('')
  })
})

describe('renderLogLines', () => {
  it('gives labelled log lines, with the kind when not normal', () => {
    expect(renderLogLines(msg('s', 'user', [txt('Reminder')], 'synthetic'))).toBe('[user/synthetic] Reminder')
    expect(renderLogLines(msg('a', 'assistant', [think('hmm'), txt('ok'), call('c1', 'ls', '{}')]))).toBe(
      '[assistant (thinking)] hmm\n[assistant] ok\n[call c1] ls({})',
    )
    expect(renderLogLines(msg('t', 'tool', [result('c1', 'out', 'ls')]))).toBe('[tool c1] ls: out')
    expect(renderLogLines(msg('b', 'user', [txt('M1')], 'bookmark'))).toBe('[bookmark] --- M1 ---')
    expect(renderLogLines(msg('m', 'user', [], 'metadata', { metadata: { turn: 3 } }))).toBe('[metadata] {"turn":3}')
  })
})

describe('renderTranscriptLines', () => {
  it('is compact, without reasoning, and empty for system and internal kinds', () => {
    expect(renderTranscriptLines(msg('u', 'user', [txt('Fix it')]))).toBe('[User]: Fix it')
    expect(renderTranscriptLines(msg('a', 'assistant', [think('secret'), txt('On it.'), call('c1', 'read', '{"p":1}')]))).toBe(
      '[Assistant]: On it.\n  → read({"p":1})',
    )
    expect(renderTranscriptLines(msg('t', 'tool', [result('c1', 'a\nb')]))).toBe('  ← read result:\n    a\n    b')
    for (const m of [everyKind[0], everyKind[7], everyKind[8], everyKind[9]]) expect(renderTranscriptLines(m as never)).toBe('')
  })
})

describe('renderMarkdown', () => {
  it('puts each result under its call, and leaves reasoning out', () => {
    const md = renderMarkdown(forExport(everyKind))
    expect(md).toContain('## System\n\nYou are helpful.\n')
    expect(md).toContain('### Tool: read\n\n**Arguments:**\n\n```json\n{}\n```\n\n**Result:**\n\n```\nfile body\n```\n')
    expect(md).not.toContain('look first')
    expect(md.indexOf('file body')).toBeLessThan(md.indexOf('## Assistant\n\nDone.'))
  })
  it('includes reasoning as a quote when asked', () => {
    const md = renderMarkdownWith({ reasoning: 'include' })(everyKind)
    expect(md).toContain('> **Thinking:** look first\n')
    expect(renderMarkdownWith({ reasoning: 'omit' })(everyKind)).toBe(renderMarkdown(everyKind))
  })
  it('keeps a result containing ``` inside its block', () => {
    const nasty = 'before\n```\n## User\n\nINJECTED\n````\nafter'
    const md = renderMarkdown([msg('a', 'assistant', [call('c1')]), msg('t', 'tool', [result('c1', nasty)]), msg('u', 'user', [txt('next')])])
    expect(codeBlocks(md)).toContain(nasty)
    expect(md).toContain('`````\nbefore')
    expect(md.endsWith('## User\n\nnext\n')).toBe(true)
  })
  it('closes a fence a message leaves open, so the next message is not swallowed', () => {
    const md = renderMarkdown([msg('a', 'assistant', [txt('Here:\n```ts\nconst x = 1')]), msg('u', 'user', [txt('thanks')])])
    expect(codeBlocks(md)).toEqual(['const x = 1'])
    expect(md).toContain('## User\n\nthanks')
  })
  it('closes an HTML comment or <pre> block a message leaves open', () => {
    expect(renderMarkdown([msg('u', 'user', [txt('<!-- hidden')]), msg('a', 'assistant', [txt('seen')])])).toBe(
      '## User\n\n<!-- hidden\n-->\n\n## Assistant\n\nseen\n',
    )
    expect(renderMarkdown([msg('u', 'user', [txt('<pre>\nx')])])).toContain('<pre>\nx\n</pre>')
    expect(renderMarkdown([msg('u', 'user', [txt('```\n<!-- in code')])])).toBe('## User\n\n```\n<!-- in code\n```\n')
  })
  it('renders an unpaired result on its own', () => {
    const md = renderMarkdown([msg('u', 'user', [txt('q')]), msg('t', 'tool', [result('zz', 'lonely', 'grep')])])
    expect(md).toContain('## Tool result: grep\n\n**Result:**\n\n```\nlonely\n```\n')
  })
  it('renders a result on its own when its call sits in a bookmark (whose calls are not shown)', () => {
    const md = renderMarkdown([msg('b', 'assistant', [txt('Milestone'), call('c1')], 'bookmark'), msg('t', 'tool', [result('c1', 'the output')])])
    expect(md).toContain('## Tool result: read\n\n**Result:**\n\n```\nthe output\n```\n')
  })

  it('renders a bookmark as a rule with its label, a notice as a quote, skips metadata', () => {
    const md = renderMarkdown(everyKind)
    expect(md).toContain('---\n\n*Milestone 1*\n')
    expect(md).toContain('> **Notice:** Checkpoint saved\n')
    expect(md).not.toContain('turn')
  })
  it('shows images as references and an error result as such', () => {
    const md = renderMarkdown([
      msg('u', 'user', [txt('see'), { type: 'image', url: 'https://x.test/a b.png' }, { type: 'image', data: new Uint8Array(2), mediaType: 'image/png' }]),
      msg('a', 'assistant', [call('c1', 'rm')]),
      msg('t', 'tool', [{ type: 'tool_result', toolCallId: 'c1', content: 'denied', isError: true }]),
    ])
    expect(md).toContain('![image](<https://x.test/a b.png>)')
    expect(md).toContain('*[image: image/png, 2 bytes]*')
    expect(md).toContain('**Error:**\n\n```\ndenied\n```')
  })
  it('every code block of a sample history closes', () => {
    expect(codeBlocks(renderMarkdown(everyKind)).length).toBe(4)
  })
})

describe('sub-conversations in plain text', () => {
  it('shows a sub-conversation message as the message it is, calls included', () => {
    const sub = { metadata: { subagent: { toolCallId: 'task1' } } }
    expect(renderMessage(msg('s', 'assistant', [txt('Searching.'), call('c9', 'grep', '{}')], 'display', sub))).toBe(
      '[Assistant (sub-conversation)]: Searching.\n  → grep({})\n',
    )
    expect(renderMessage(msg('r', 'tool', [result('c9', 'a.ts:2')], 'display', sub))).toBe('  ← read result:\n    a.ts:2\n')
  })
})
