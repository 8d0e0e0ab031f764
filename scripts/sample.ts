/**
 * A deterministic generator of coding-agent sessions: the shipped demo session, the fixtures of
 * property and load tests, and the history every benchmark runs on.
 *
 * A session is a system prompt, then turns: a user request; assistant messages with reasoning,
 * text and tool calls (read_file, grep, bash, edit_file, list_dir, fetch_docs); one tool message a
 * call whose result is 100 B to 50 KB (log-skewed towards small ones) of TypeScript, JSON, logs, prose or CJK text.
 * Every few turns there is a synthetic reminder, an ephemeral tool error (paired with its call),
 * a display notice, a bookmark or a metadata record, and now and then a small image.
 * The same options always give the same history, byte for byte.
 */
import type { Message, Part } from '../src/mod.ts'

export type SampleOptions = {
  /** About how many messages (the last turn is completed, so a few more may come). */
  readonly messages: number
  /** PRNG seed. */
  readonly seed?: number
  /** Smallest and largest tool result, in bytes. */
  readonly minResult?: number
  readonly maxResult?: number
  /** The timestamp of the first message. */
  readonly start?: string
}

export type ContentKind = 'code' | 'json' | 'logs' | 'prose' | 'cjk'

/** mulberry32: a small, fast, seedable PRNG. */
export const prng = (seed: number) => {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)] as A
  return { next, int, pick }
}
type Rng = ReturnType<typeof prng>

const IDENTS = ['history', 'message', 'tokens', 'budget', 'summary', 'session', 'worker', 'estimate', 'prune', 'result', 'config', 'buffer', 'parser', 'handler', 'queue', 'cursor']
const FILES = ['src/server.ts', 'src/agent/loop.ts', 'src/db/pool.ts', 'src/ui/Chat.tsx', 'lib/parse.go', 'tests/loop.test.ts', 'README.md', 'package.json', 'src/cache.rs', 'scripts/deploy.sh']
const WORDS = ['the', 'agent', 'reads', 'file', 'before', 'editing', 'and', 'checks', 'tests', 'again', 'because', 'a', 'failing', 'build', 'blocks', 'release', 'of', 'new', 'parser', 'which', 'handles', 'streamed', 'tool', 'calls', 'with', 'partial', 'JSON']
const CJK = ['会话历史需要压缩。', '工具调用的结果很长，', '请先阅读文件再修改。', '測試失敗了，因為解析器', 'トークン数を見積もる。', '요약을 작성합니다。', '上下文窗口已满，', '我们保留最近的消息。']
const LEVELS = ['INFO', 'WARN', 'DEBUG', 'ERROR']

const codeLine = (r: Rng): string => {
  const a = r.pick(IDENTS)
  const b = r.pick(IDENTS)
  switch (r.int(0, 5)) {
    case 0: return `export const ${a}${r.int(0, 99)} = (${b}: number): number => ${b} * ${r.int(2, 9)}`
    case 1: return `  if (${a}.length > ${r.int(10, 9999)}) throw new Error('${a} too large')`
    case 2: return `import { ${a}, ${b} } from './${b}.ts'`
    case 3: return `  for (const ${a} of ${b}s) total += ${a}.tokens ?? 0`
    case 4: return `// ${r.pick(WORDS)} ${r.pick(WORDS)} ${r.pick(WORDS)} ${r.pick(WORDS)}`
    default: return `  return { ...${a}, ${b}: ${r.int(0, 1e6)} }`
  }
}
const jsonLine = (r: Rng): string =>
  JSON.stringify({ id: r.int(1, 1e6), name: r.pick(IDENTS), path: r.pick(FILES), ok: r.next() > 0.2, score: Math.round(r.next() * 1e4) / 100, tags: [r.pick(WORDS), r.pick(WORDS)] })
const logLine = (r: Rng, i: number): string =>
  `2026-11-${String(r.int(1, 28)).padStart(2, '0')}T${String(r.int(0, 23)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z ${r.pick(LEVELS)} [${r.pick(IDENTS)}] request ${r.int(1000, 99999)} took ${r.int(1, 900)}ms status=${r.pick([200, 200, 201, 404, 500])}`
const proseLine = (r: Rng): string => {
  const n = r.int(8, 24)
  const ws: string[] = []
  for (let i = 0; i < n; i++) ws.push(r.pick(WORDS))
  const s = ws.join(' ')
  return `${s[0]?.toUpperCase() ?? ''}${s.slice(1)}.`
}
const cjkLine = (r: Rng): string => {
  let s = ''
  for (let i = r.int(2, 6); i > 0; i--) s += r.pick(CJK)
  return s
}

/** Text of one kind, about `bytes` long (UTF-8 length may exceed it for CJK). */
export const sampleText = (r: Rng, kind: ContentKind, bytes: number): string => {
  const lines: string[] = []
  let len = 0
  for (let i = 0; len < bytes; i++) {
    const line =
      kind === 'code' ? codeLine(r) : kind === 'json' ? jsonLine(r) : kind === 'logs' ? logLine(r, i) : kind === 'cjk' ? cjkLine(r) : proseLine(r)
    lines.push(line)
    len += line.length + 1
  }
  if (kind === 'json') return `[\n${lines.join(',\n')}\n]`
  return lines.join('\n')
}

const TOOLS: ReadonlyArray<readonly [string, ContentKind]> = [
  ['read_file', 'code'],
  ['grep', 'code'],
  ['bash', 'logs'],
  ['list_dir', 'json'],
  ['fetch_docs', 'prose'],
  ['translate', 'cjk'],
  ['edit_file', 'code'],
]

const PNG_1X1 = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 31, 21, 196, 137])

/**
 * Generates a coding-agent session of about `messages` messages.
 *
 * @example
 * const history = sampleSession({ messages: 2000, seed: 7 })
 */
export const sampleSession = (opts: SampleOptions): Message[] => {
  const r = prng(opts.seed ?? 1)
  const minResult = opts.minResult ?? 100
  const maxResult = opts.maxResult ?? 50_000
  let clock = Date.parse(opts.start ?? '2026-11-01T09:00:00.000Z')
  let seq = 0
  const out: Message[] = []
  const push = (m: Omit<Message, 'id' | 'createdAt'>) => {
    clock += r.int(200, 20_000)
    out.push({ id: `m${String(++seq).padStart(6, '0')}`, createdAt: new Date(clock).toISOString(), ...m } as Message)
  }
  const resultSize = () => Math.round(Math.exp(Math.log(minResult) + r.next() ** 2 * (Math.log(maxResult) - Math.log(minResult))))

  push({ role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'You are a careful coding agent. Read before you edit; run the tests after every change.' }] })
  let turn = 0
  while (out.length < opts.messages) {
    turn++
    const file = r.pick(FILES)
    const userParts: Part[] = [{ type: 'text', text: `Turn ${turn}: please fix the failing test in ${file} and explain what ${r.pick(IDENTS)} does. ${proseLine(r)}` }]
    if (r.next() < 0.03) userParts.push({ type: 'image', data: PNG_1X1, mediaType: 'image/png' })
    push({ role: 'user', kind: 'normal', parts: userParts })
    if (turn % 7 === 0) push({ role: 'user', kind: 'synthetic', parts: [{ type: 'text', text: 'Reminder: keep edits small and run the tests.' }] })
    const steps = r.int(1, 4)
    for (let s = 0; s < steps; s++) {
      const calls = r.int(s === steps - 1 ? 0 : 1, 3)
      const parts: Part[] = [
        { type: 'reasoning', text: `${proseLine(r)} ${proseLine(r)}`, signature: `sig_${turn}_${s}` },
        { type: 'text', text: s === steps - 1 && calls === 0 ? `Done: ${proseLine(r)} The change is in ${file}.` : `Let me look at ${file}.` },
      ]
      const ids: Array<readonly [string, string, ContentKind]> = []
      for (let c = 0; c < calls; c++) {
        const [name, kind] = r.pick(TOOLS)
        const id = `call_${turn}_${s}_${c}`
        ids.push([id, name, kind])
        const args = name === 'edit_file' ? { path: file, content: sampleText(r, 'code', r.int(200, 4000)) } : { path: r.pick(FILES), pattern: r.pick(IDENTS) }
        parts.push({ type: 'tool_call', id, name, arguments: JSON.stringify(args), status: 'complete' })
      }
      parts.push({ type: 'finish', reason: calls > 0 ? 'tool_use' : 'end_turn' })
      push({ role: 'assistant', kind: 'normal', parts, model: 'sample-model-1', provider: 'sample' })
      for (const [id, name, kind] of ids) {
        const ephemeral = r.next() < 0.02
        push({
          role: 'tool',
          kind: ephemeral ? 'ephemeral' : 'normal',
          parts: [{ type: 'tool_result', toolCallId: id, name, content: ephemeral ? `error: tool ${name} denied by policy` : sampleText(r, kind, resultSize()), isError: ephemeral }],
        })
      }
    }
    if (turn % 11 === 0) push({ role: 'assistant', kind: 'display', parts: [{ type: 'text', text: `Checkpoint saved after turn ${turn}.` }] })
    if (turn % 25 === 0) push({ role: 'user', kind: 'bookmark', parts: [{ type: 'text', text: `Milestone ${turn / 25}` }] })
    if (turn % 13 === 0) push({ role: 'user', kind: 'metadata', parts: [], metadata: { turn, branch: 'main', costUsd: Math.round(r.next() * 100) / 100 } })
  }
  return out
}
