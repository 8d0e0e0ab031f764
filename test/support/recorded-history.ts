/**
 * A small coding history as the session-file readers give it: assistant replies with `model`,
 * `provider`, `createdAt` and `metadata.usage`; a `Task` call whose sub-conversation follows its
 * result (display messages marked `metadata.subagent`); an injected reminder (`metadata.origin`);
 * a compaction summary; a screenshot; and text that must stay text (`<script>`, `# Title`).
 * Shared by the usage, HTML and Markdown tests and the page screenshots.
 */
import { COMPACTION_KEY } from '../../src/message/compaction-mark.ts'
import { type Message } from '../../src/message/message.ts'
import { image, reasoning, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { type Part } from '../../src/message/part-model.ts'
import { decodeBase64 } from '../../src/internal/base64.ts'

/** A 160×90 PNG: a white card with a blue bar on a gradient. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAKAAAABaCAIAAACwpMoFAAAB5ElEQVR42u3R200cYAxEYfeVUmiXBAIkWdj7fZf743QQOuDBlqz9R8c6BVjzxflTZFwwAcA0MvDpU2RcnD5ExgHsDnz8EBkHsD3wu8i4OLyLjAMYYBoaeP8mMg5ggGlo4N2byLjYvYqMA9gdePsqMg5ge+AXpfvPtVzFKDYvSsf0PVcxAhhggIcGXj8rHdP3XMUIYIABHhp49ax0TN9zFaNYnZWO6ZuAC0YAuwMvz0rH9D1XMQLYHvikdEzfBFwwisVJ6Zi+5ypGAAMM8NDA86PSMX3PVYwABhjgoYFnR6Vj+p6rGMXsoHTfv/XjajtoFwdcMALYHXh6UDqAe65iBLA98F7pAG4CLhjF017pAO65ihHAAAM8NPDjTukA7rmKEcAAZ4G5iwCe7JSO6XuuYhSTrdIxfRNwwQhgd+B/W6Vj+p6rGAFsD7xROqZvAi4Yxd+N0jF9z1WMAAYY4KGB/6yVjul7rmIEMMAADw38sFY6pu+5ilE8rJSO6ZuAC0YAuwPfr5SO6XuuYgSwPfBS6Zi+CbhgFHdLpWP6nqsYlYDp8gPYHfj3QmQcwADT0MC3C5FxcTsXGQewO/DNXGQcwPbAM5Fx8WsmMg5ggGlo4J9TkXEAA0xDA19PRcbF9ZPIOIDN+wIp7W1Bn4jyXgAAAABJRU5ErkJggg=='

const at = (minute: number, second = 0): string => new Date(Date.UTC(2026, 2, 2, 10, minute, second)).toISOString()
const MAIN = { model: 'claude-sonnet-4-5', provider: 'anthropic' } as const
const SUB = { model: 'claude-haiku-4-5', provider: 'anthropic' } as const
const usage = (input: number, output: number, cacheRead: number, cacheWrite: number) => ({ usage: { input, output, cacheRead, cacheWrite } })
const m = (id: string, role: Message['role'], parts: ReadonlyArray<Part>, extra: Partial<Message> = {}): Message => ({
  id,
  role,
  kind: 'normal',
  parts,
  ...extra,
})
const sub = (id: string, role: Message['role'], parts: ReadonlyArray<Part>, createdAt: string, extra: Partial<Message> = {}): Message =>
  m(id, role, parts, {
    kind: 'display',
    createdAt,
    ...extra,
    metadata: { ...(extra.metadata ?? {}), subagent: { toolCallId: 'toolu_task', agentId: 'explore-1' } },
  })

/** The history: three turns, one of them after a compaction. */
export const recordedHistory = (): ReadonlyArray<Message> => [
  m('sys', 'system', [text('You are a coding assistant working in the repository of a small web shop.')], { createdAt: at(0) }),
  m('u1', 'user', [text('The cart total is off by a cent when a coupon applies. Can you find out why? <script>alert("x")</script>')], { createdAt: at(0, 5) }),
  m(
    'a1',
    'assistant',
    [
      reasoning('The total is probably rounded per line, then summed. Read src/cart.ts first.', { signature: 'c2lnbmF0dXJl' }),
      text('Let me look at how the total is computed.'),
      toolCall({ id: 'toolu_read', name: 'Read', arguments: '{"file_path":"src/cart.ts"}', status: 'complete' }),
    ],
    { ...MAIN, createdAt: at(0, 9), metadata: usage(4, 96, 0, 5_210) },
  ),
  m('t1', 'tool', [
    toolResult({
      toolCallId: 'toolu_read',
      name: 'Read',
      content: 'export const total = (lines: Line[]) =>\n  lines.reduce((s, l) => s + Math.round(l.price * l.qty * (1 - l.discount)), 0)\n',
    }),
  ], { createdAt: at(0, 10) }),
  m('rem', 'user', [text('<system-reminder>The file src/cart.ts was read; prefer editing over rewriting.</system-reminder>')], {
    kind: 'synthetic',
    createdAt: at(0, 10),
    metadata: { origin: 'system-reminder' },
  }),
  m(
    'a2',
    'assistant',
    [
      text('Each line is rounded before the sum. I will ask a helper to search for other places that round.'),
      toolCall({
        id: 'toolu_task',
        name: 'Task',
        arguments: '{"description":"find rounding","prompt":"Find every Math.round on money in src/"}',
        status: 'complete',
      }),
    ],
    { ...MAIN, createdAt: at(0, 20), metadata: usage(3, 141, 5_210, 420) },
  ),
  m('t2', 'tool', [toolResult({ toolCallId: 'toolu_task', name: 'Task', content: 'Two places round money: src/cart.ts:2 and src/invoice.ts:14.' })], {
    createdAt: at(1, 30),
  }),
  sub('s1', 'user', [text('Find every Math.round on money in src/')], at(0, 21)),
  sub('s2', 'assistant', [toolCall({ id: 'toolu_grep', name: 'Grep', arguments: '{"pattern":"Math.round","path":"src"}', status: 'complete' })], at(0, 24), {
    ...SUB,
    metadata: usage(2_010, 40, 0, 0),
  }),
  sub('s3', 'tool', [
    toolResult({
      toolCallId: 'toolu_grep',
      name: 'Grep',
      content: 'src/cart.ts:2:  lines.reduce((s, l) => s + Math.round(…\nsrc/invoice.ts:14:  return Math.round(amount * rate)',
    }),
  ], at(0, 25)),
  sub('s4', 'assistant', [text('Two places round money: src/cart.ts:2 and src/invoice.ts:14.')], at(1, 29), { ...SUB, metadata: usage(2_150, 35, 0, 0) }),
  m('a3', 'assistant', [text('# Cause\n\nRounding **per line** loses up to half a cent each time.\n\n## Fix\n\nSum first, round once.')], {
    ...MAIN,
    createdAt: at(1, 40),
    metadata: usage(5, 88, 5_630, 310),
  }),
  m('sum', 'user', [text('## Goal\nFix the cart total.\n## Progress\nFound per-line rounding in src/cart.ts and src/invoice.ts.')], {
    createdAt: at(5),
    metadata: { [COMPACTION_KEY]: { summarised: 11, through: 'a3' } },
  }),
  m('u2', 'user', [text('Here is the page after my change:'), image({ data: decodeBase64(PNG_BASE64) ?? new Uint8Array(), mediaType: 'image/png' })], {
    createdAt: at(6),
  }),
  m(
    'a4',
    'assistant',
    [
      text('I will run the tests.'),
      toolCall({ id: 'toolu_bash', name: 'Bash', arguments: '{"command":"npm test -- cart"}', status: 'complete' }),
    ],
    { ...MAIN, createdAt: at(6, 8), metadata: usage(12, 60, 0, 1_300) },
  ),
  m('t4', 'tool', [toolResult({ toolCallId: 'toolu_bash', name: 'Bash', content: 'FAIL tests/cart.test.ts\n  expected 1999, got 2000', isError: true })], {
    createdAt: at(6, 20),
  }),
  m('a5', 'assistant', [text('One test still expects the old rounding; it is the test that is wrong. All green after updating it.')], {
    ...MAIN,
    createdAt: at(7, 2),
    metadata: usage(6, 52, 1_300, 200),
  }),
]
