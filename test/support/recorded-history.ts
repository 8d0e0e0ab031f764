/**
 * A small coding history as the session-file readers give it: assistant replies with `model`,
 * `provider`, `createdAt` and `metadata.usage`; a `Task` call whose sub-conversation follows its
 * result (display messages marked `metadata.subagent`); an injected reminder (`metadata.origin`);
 * a compaction summary; a screenshot; and text that must stay text (`<script>`, `# Title`).
 * Shared by the usage, HTML and Markdown tests and the page screenshots.
 */
import { COMPACTION_KEY, image, type Message, type Part, reasoning, text, toolCall, toolResult } from '../../src/mod.ts'
import { decodeBase64 } from '../../src/internal/base64.ts'

/** A 24×16 PNG (a colour gradient). */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAABgAAAAQCAIAAACDRijCAAACcklEQVR4nBXSIdbtIAxF4TecX1ZWVlYikUgkcktkZCQyMhKJRCIrKzuUx80AvpWcnH9/rIN1si7WzQqsyEqszCosWJUlLGU1lrGc1VmDNVmL9bBe1sf698c8mCfzYt7MwIzMxMzMwoRZmcJUZmMa05mdOZiTuZgP82V+zA2Ng3EyLsbNCIzISIzMKAwYlSEMZTSGMZzRGYMxGYvxMF7Gx9hQP+gn/aLf9ECP9ETP9EKHXulCV3qjG93pnT7ok77oD/2lf/QN+YGf+IXfeMAjnvCMFxy84oIr3nDDHe/4wCe+8Ad/8Q/fkB3YiV3YjQUsYgnLWMHAKiaYYg0zzLGODWxiC3uwF/uwDbWDdtIu2k0LtEhLtEwrNGiVJjSlNZrRnNZpgzZpi/bQXtpH25Ae6Ile6I0GNKIJzWhBQSsqqKINNdTRjg50ogt90Bf90A3JgZzIhdxIQCKSkIwUBKQigijSEEMc6chAJrKQB3mRD9lQPagn9aLe1ECN1ETN1EKFWqlCVWqjGtWpnTqok7qoD/WlftQNccAJF9wQIEKCDIXfbGwvto/cge3w9yN3KXbBdll38R944YMNlYNyUi7KTQmUSEmUTCk/qlSKUJTSKEZxSqcMyqQsykN5KR9lQ/kgn+SLfJMDOZITOZPLb61cyUJWciMb2cmdPMiTvMgP+SV/5A2lg3SSLtJNCqRISqRMKr8TUyUJSUmNZCQnddIgTdIiPaSX9JE2FA/iSbyINzEQIzERM7H84oqVKEQlNqIRndiJgziJi/gQX+JH3FA4CCfhItyEQIiERMiE8os+VIIQlNAIRnBCJwzCJCzCQ3gJH+E/pQFMHwGmfdwAAAAASUVORK5CYII='

const at = (minute: number, second = 0): string => new Date(Date.UTC(2026, 2, 2, 10, minute, second)).toISOString()
const MAIN = { model: 'claude-sonnet-4-5', provider: 'anthropic' } as const
const SUB = { model: 'claude-haiku-4-5', provider: 'anthropic' } as const
const usage = (input: number, output: number, cacheRead: number, cacheWrite: number) => ({ usage: { input, output, cacheRead, cacheWrite } })
const m = (id: string, role: Message['role'], parts: ReadonlyArray<Part>, extra: Partial<Message> = {}): Message => ({ id, role, kind: 'normal', parts, ...extra })
const sub = (id: string, role: Message['role'], parts: ReadonlyArray<Part>, createdAt: string, extra: Partial<Message> = {}): Message =>
  m(id, role, parts, { kind: 'display', createdAt, ...extra, metadata: { ...(extra.metadata ?? {}), subagent: { toolCallId: 'toolu_task', agentId: 'explore-1' } } })

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
  m('t1', 'tool', [toolResult({ toolCallId: 'toolu_read', name: 'Read', content: 'export const total = (lines: Line[]) =>\n  lines.reduce((s, l) => s + Math.round(l.price * l.qty * (1 - l.discount)), 0)\n' })], { createdAt: at(0, 10) }),
  m('rem', 'user', [text('<system-reminder>The file src/cart.ts was read; prefer editing over rewriting.</system-reminder>')], { kind: 'synthetic', createdAt: at(0, 10), metadata: { origin: 'system-reminder' } }),
  m(
    'a2',
    'assistant',
    [text('Each line is rounded before the sum. I will ask a helper to search for other places that round.'), toolCall({ id: 'toolu_task', name: 'Task', arguments: '{"description":"find rounding","prompt":"Find every Math.round on money in src/"}', status: 'complete' })],
    { ...MAIN, createdAt: at(0, 20), metadata: usage(3, 141, 5_210, 420) },
  ),
  m('t2', 'tool', [toolResult({ toolCallId: 'toolu_task', name: 'Task', content: 'Two places round money: src/cart.ts:2 and src/invoice.ts:14.' })], { createdAt: at(1, 30) }),
  sub('s1', 'user', [text('Find every Math.round on money in src/')], at(0, 21)),
  sub('s2', 'assistant', [toolCall({ id: 'toolu_grep', name: 'Grep', arguments: '{"pattern":"Math.round","path":"src"}', status: 'complete' })], at(0, 24), { ...SUB, metadata: usage(2_010, 40, 0, 0) }),
  sub('s3', 'tool', [toolResult({ toolCallId: 'toolu_grep', name: 'Grep', content: 'src/cart.ts:2:  lines.reduce((s, l) => s + Math.round(…\nsrc/invoice.ts:14:  return Math.round(amount * rate)' })], at(0, 25)),
  sub('s4', 'assistant', [text('Two places round money: src/cart.ts:2 and src/invoice.ts:14.')], at(1, 29), { ...SUB, metadata: usage(2_150, 35, 0, 0) }),
  m('a3', 'assistant', [text('# Cause\n\nRounding **per line** loses up to half a cent each time.\n\n## Fix\n\nSum first, round once.')], { ...MAIN, createdAt: at(1, 40), metadata: usage(5, 88, 5_630, 310) }),
  m('sum', 'user', [text('## Goal\nFix the cart total.\n## Progress\nFound per-line rounding in src/cart.ts and src/invoice.ts.')], { createdAt: at(5), metadata: { [COMPACTION_KEY]: { summarised: 11, through: 'a3' } } }),
  m('u2', 'user', [text('Here is the page after my change:'), image({ data: decodeBase64(PNG_BASE64) ?? new Uint8Array(), mediaType: 'image/png' })], { createdAt: at(6) }),
  m(
    'a4',
    'assistant',
    [
      text('I will run the tests.'),
      toolCall({ id: 'toolu_bash', name: 'Bash', arguments: '{"command":"npm test -- cart"}', status: 'complete' }),
    ],
    { ...MAIN, createdAt: at(6, 8), metadata: usage(12, 60, 0, 1_300) },
  ),
  m('t4', 'tool', [toolResult({ toolCallId: 'toolu_bash', name: 'Bash', content: 'FAIL tests/cart.test.ts\n  expected 1999, got 2000', isError: true })], { createdAt: at(6, 20) }),
  m('a5', 'assistant', [text('One test still expects the old rounding; it is the test that is wrong. All green after updating it.')], { ...MAIN, createdAt: at(7, 2), metadata: usage(6, 52, 1_300, 200) }),
]
