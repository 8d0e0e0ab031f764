/**
 * A deterministic generator of coding-agent sessions: the shipped demo session, the fixtures of
 * property and load tests, and the history every benchmark runs on.
 *
 * A session is a system prompt, then turns a person can follow: the user reports a bug in a small
 * web shop (a cart total off by a fraction of a cent, a session that expires early, a page that
 * drops its last item, …); the assistant runs the failing test, reads and searches the files
 * involved, explains the cause in its reasoning (signed, as providers sign it), edits two files,
 * sometimes runs a command that fails and retries it, runs the tests again and reports the fix.
 * Tool results are real-looking test runs, file listings, grep hits, directory listings and docs,
 * 100 B to 50 KB each (log-skewed towards small ones). Every few turns there is a synthetic reminder,
 * an ephemeral tool refusal (paired with its call), a display notice, a bookmark or a metadata
 * record, and every tenth turn (and now and then otherwise) a screenshot. The same options always give the same history, byte for byte.
 *
 * `sampleText` (text of one content kind) is the token estimators' test corpus, unchanged.
 */
import type { Message } from '../src/message/message.ts'
import type { Part } from '../src/message/part-model.ts'

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


// --- the stories ---

type Bug = {
  readonly title: string
  readonly files: readonly [string, string]
  readonly test: string
  readonly fn: string
  readonly helper: string
  readonly expected: string
  readonly received: string
  readonly cause: string
  readonly fix: string
  readonly before: string
  readonly after: string
}

const BUGS: ReadonlyArray<Bug> = [
  {
    title: 'the cart total shows 19.999 instead of 20.00',
    files: ['src/cart/total.ts', 'src/cart/money.ts'],
    test: 'test/cart.test.ts',
    fn: 'cartTotal',
    helper: 'toCents',
    expected: "'20.00'",
    received: "'19.999'",
    cause: 'the prices are summed as floating-point numbers, so 0.1 + 0.2 style errors add up',
    fix: 'sum integer cents with toCents and format once at the end',
    before: 'items.reduce((sum, i) => sum + i.price * i.qty, 0)',
    after: 'formatCents(items.reduce((sum, i) => sum + toCents(i.price) * i.qty, 0))',
  },
  {
    title: 'users are logged out after one minute instead of one hour',
    files: ['src/auth/session.ts', 'src/auth/clock.ts'],
    test: 'test/session.test.ts',
    fn: 'isExpired',
    helper: 'nowMs',
    expected: 'false',
    received: 'true',
    cause: 'the session TTL is in seconds but it is compared with a timestamp in milliseconds',
    fix: 'convert the TTL to milliseconds before comparing',
    before: 'return now - session.createdAt > session.ttl',
    after: 'return nowMs() - session.createdAt > session.ttl * 1000',
  },
  {
    title: 'the product list drops the last item of every page',
    files: ['src/api/list.ts', 'src/db/query.ts'],
    test: 'test/list.test.ts',
    fn: 'paginate',
    helper: 'pageBounds',
    expected: '25',
    received: '24',
    cause: 'the page end is computed as offset + limit - 1, but slice already excludes its end',
    fix: 'slice from offset to offset + limit',
    before: 'rows.slice(offset, offset + limit - 1)',
    after: 'rows.slice(offset, offset + limit)',
  },
  {
    title: 'the CSV export splits product names that contain a comma',
    files: ['src/export/csv.ts', 'src/export/escape.ts'],
    test: 'test/csv.test.ts',
    fn: 'toCsvRow',
    helper: 'quoteField',
    expected: '\'"Mug, blue",12.00\'',
    received: "'Mug, blue,12.00'",
    cause: 'fields are joined with commas without quoting, so a comma inside a name starts a new column',
    fix: 'quote every field that holds a comma, a quote or a newline, doubling inner quotes',
    before: "fields.join(',')",
    after: "fields.map(quoteField).join(',')",
  },
  {
    title: 'order dates show the day before for customers in Tokyo',
    files: ['src/ui/format-date.ts', 'src/config/locale.ts'],
    test: 'test/format-date.test.ts',
    fn: 'formatDate',
    helper: 'shopTimeZone',
    expected: "'2026-03-02'",
    received: "'2026-03-01'",
    cause: "the date is formatted in the server's local time zone instead of the shop's",
    fix: 'pass the timeZone of the shop to Intl.DateTimeFormat',
    before: "new Intl.DateTimeFormat('en-CA').format(date)",
    after: "new Intl.DateTimeFormat('en-CA', { timeZone: shopTimeZone() }).format(date)",
  },
  {
    title: 'a payment job that times out is retried forever',
    files: ['src/jobs/retry.ts', 'src/jobs/backoff.ts'],
    test: 'test/retry.test.ts',
    fn: 'withRetry',
    helper: 'nextDelay',
    expected: '3',
    received: '50',
    cause: 'the attempt counter is only incremented when the job throws, not when it times out',
    fix: 'count every attempt, whatever ended it',
    before: 'if (error instanceof JobError) attempts++',
    after: 'attempts++',
  },
  {
    title: 'searching for "creme" does not find "Crème brûlée"',
    files: ['src/search/normalize.ts', 'src/search/index.ts'],
    test: 'test/search.test.ts',
    fn: 'normalizeQuery',
    helper: 'foldAccents',
    expected: '1',
    received: '0',
    cause: 'queries are lower-cased but accents are kept, while the index strips them',
    fix: "fold accents in queries the way the index does (NFD, then drop combining marks)",
    before: 'return query.toLowerCase().trim()',
    after: 'return foldAccents(query.toLowerCase().trim())',
  },
  {
    title: 'the Chinese checkout page shows raw translation keys',
    files: ['src/i18n/zh.json', 'src/i18n/keys.ts'],
    test: 'test/i18n.test.ts',
    fn: 't',
    helper: 'missingKeys',
    expected: "'结账'",
    received: "'checkout.title'",
    cause: 'the checkout keys were added to en.json but never to zh.json',
    fix: 'add the missing keys to zh.json and make missingKeys fail the build',
    before: '"cart.title": "购物车"',
    after: '"cart.title": "购物车",\n  "checkout.title": "结账"',
  },
]

const DOCS = [
  'Array.prototype.slice returns a shallow copy of a portion of an array; the end index is not included.',
  'Number values are IEEE 754 doubles, so decimal fractions such as 0.1 cannot be represented exactly.',
  'Intl.DateTimeFormat formats a date in the runtime time zone unless the timeZone option names another.',
  'String.prototype.normalize("NFD") decomposes accented letters into a base letter and combining marks.',
  'A field that contains a comma, a double quote or a line break must be enclosed in double quotes (RFC 4180).',
  'Date.now returns milliseconds since the epoch; many token formats store expiry times in seconds.',
  'vitest run executes the test files once and exits with code 1 when a test fails.',
  'Retries should be bounded and use exponential backoff with jitter to avoid synchronised retries.',
  'Keep money in integer minor units (cents) and convert to a decimal string only for display.',
  'The timeZone option accepts IANA names such as Asia/Tokyo or Europe/Paris.',
]

const REQUESTS = [
  (b: Bug) => `Customers report that ${b.title}. Can you find out why and fix it? Keep the public API unchanged.`,
  (b: Bug) => `Bug from support: ${b.title}. The test in ${b.test} fails on main. Please fix it and make sure the whole suite still passes.`,
  (b: Bug) => `${b.title[0]?.toUpperCase() ?? ''}${b.title.slice(1)} again. Please fix the cause, not the symptom, and don't touch the tests.`,
]

const sig = (r: Rng): string => {
  const bytes = new Uint8Array(48)
  for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(0, 255)
  return btoa(String.fromCharCode(...bytes))
}

/** Lines until `bytes` (the first ones given), from `more`. */
const fill = (first: ReadonlyArray<string>, bytes: number, more: (i: number) => string): string => {
  const lines = [...first]
  let len = lines.reduce((a, l) => a + l.length + 1, 0)
  for (let i = 0; len < bytes; i++) {
    const l = more(i)
    lines.push(l)
    len += l.length + 1
  }
  return lines.join('\n')
}

const listing = (r: Rng, b: Bug, path: string, bytes: number): string => {
  const head = [
    `// ${path}`,
    `import { ${b.helper} } from './${(b.files[1].split('/').pop() ?? '').replace(/\.\w+$/, '')}.ts'`,
    '',
    `export const ${b.fn} = (input) => {`,
    `  ${b.before}`,
    '}',
    '',
  ]
  let n = 0
  return fill(head, bytes, () => `${String(head.length + ++n).padStart(4)}  ${codeLine(r)}`)
}

const testRun = (r: Rng, b: Bug, pass: boolean, bytes: number): string => {
  const total = r.int(6, 30)
  const head = pass
    ? [` ✓ ${b.test} (${total} tests) ${r.int(8, 400)}ms`, '', ' Test Files  1 passed (1)', `      Tests  ${total} passed (${total})`, 'exit code 0']
    : [
        `FAIL ${b.test} > ${b.fn}: expected ${b.received} to be ${b.expected}`,
        '',
        `AssertionError: expected ${b.received} to be ${b.expected}`,
        ` ❯ ${b.test}:${r.int(10, 90)}:${r.int(5, 40)}`,
        '',
        ' Test Files  1 failed (1)',
        `      Tests  1 failed | ${total - 1} passed (${total})`,
        'exit code 1',
      ]
  return bytes <= 600 ? head.join('\n') : `${head.join('\n')}\n\n--- server log during the run ---\n${fill([], bytes - 600, (i) => logLine(r, i))}`
}

const grepHits = (r: Rng, b: Bug, bytes: number): string =>
  fill([`${b.files[0]}:${r.int(3, 40)}:  ${b.before}`, `${b.files[1]}:${r.int(3, 40)}:export const ${b.helper} = (value) => {`], bytes, () => `${r.pick(FILES)}:${r.int(1, 400)}:${codeLine(r)}`)

const dirListing = (r: Rng, b: Bug, bytes: number): string => {
  const dir = b.files[0].split('/').slice(0, -1).join('/')
  const entries = [...b.files, b.test].map((f) => JSON.stringify({ path: f, size: r.int(300, 9_000), modified: '2026-10-30' }))
  return `[\n${fill(entries, bytes, () => JSON.stringify({ path: `${dir}/${r.pick(IDENTS)}${r.int(1, 99)}.ts`, size: r.int(100, 20_000), modified: '2026-10-2' + String(r.int(0, 9)) })).split('\n').join(',\n')}\n]`
}

const docsText = (r: Rng, bytes: number): string => fill([], bytes, () => r.pick(DOCS))

const ZH = ['结账', '购物车', '订单确认', '支付方式', '收货地址', '优惠券', '运费', '合计', '提交订单', '返回购物车']
const translation = (r: Rng, bytes: number): string => `{\n${fill([], bytes, (i) => `  "checkout.k${i}": "${r.pick(ZH)}${r.pick(ZH)}",`)}\n}`

type Call = { readonly name: string; readonly args: Readonly<Record<string, unknown>>; readonly result: (bytes: number) => string; readonly isError?: boolean }

/** The tool calls of one turn, in order: reproduce, read, search, edit, a failed command and its retry, verify. */
const plan = (r: Rng, b: Bug): Array<{ readonly think: string; readonly say: string; readonly calls: ReadonlyArray<Call> }> => {
  const [a, c] = b.files
  const steps: Array<{ think: string; say: string; calls: Call[] }> = []
  steps.push({
    think: `The report says ${b.title}. First I should reproduce it with the test in ${b.test}.`,
    say: `Let me run ${b.test} first.`,
    calls: [{ name: 'bash', args: { command: `npx vitest run ${b.test}` }, result: (n) => testRun(r, b, false, n), isError: true }],
  })
  const reads: Call[] = [{ name: 'read_file', args: { path: a }, result: (n) => listing(r, b, a, n) }]
  if (r.next() < 0.6) reads.push({ name: 'grep', args: { pattern: b.helper, path: 'src' }, result: (n) => grepHits(r, b, n) })
  if (r.next() < 0.3) reads.push({ name: 'list_dir', args: { path: a.split('/').slice(0, -1).join('/') }, result: (n) => dirListing(r, b, n) })
  steps.push({
    think: `The test expects ${b.expected} but gets ${b.received}. ${b.fn} in ${a} is where the value is computed; I will read it and look for ${b.helper}.`,
    say: `The failure is in ${b.fn}. Reading ${a}.`,
    calls: reads,
  })
  if (r.next() < 0.35)
    steps.push({
      think: 'Before changing anything I want to check the documented behaviour.',
      say: 'Checking the docs.',
      calls: [b.files[0].startsWith('src/i18n') ? { name: 'translate', args: { to: 'zh', keys: ['checkout.title'] }, result: (n) => translation(r, n) } : { name: 'fetch_docs', args: { query: b.helper }, result: (n) => docsText(r, n) }],
    })
  steps.push({
    think: `The root cause: ${b.cause}. The fix is to ${b.fix}, in ${a} and ${c}, rather than patching the test.`,
    say: `Found it: ${b.cause}. I will ${b.fix}.`,
    calls: [
      { name: 'edit_file', args: { path: a, old: b.before, new: b.after }, result: (n) => `Applied 1 edit to ${a}. The file now reads:\n${listing(r, { ...b, before: b.after }, a, n)}` },
      { name: 'edit_file', args: { path: c, content: `export const ${b.helper} = (value) => {\n${fill([], r.int(150, 4000), () => codeLine(r))}\n}` }, result: () => `Wrote ${c}` },
    ],
  })
  if (r.next() < 0.4)
    steps.push({
      think: 'Running only the related tests should be quicker.',
      say: 'Running the related tests.',
      calls: [{ name: 'bash', args: { command: `npm test -- --grep ${b.fn}` }, result: () => "error: unknown option '--grep'\n(Did you mean --testNamePattern?)\nexit code 2", isError: true }],
    })
  steps.push({
    think: `${steps.length > 4 ? 'vitest has no --grep option; it takes the test file instead. ' : ''}Now the test should pass.`,
    say: 'Running the tests again.',
    calls: [{ name: 'bash', args: { command: `npx vitest run ${b.test}` }, result: (n) => testRun(r, b, true, n) }],
  })
  return steps
}

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

  push({ role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'You are a careful coding agent working on a web shop. Read before you edit; run the tests after every change; never change a test to make it pass.' }] })
  let turn = 0
  while (out.length < opts.messages) {
    turn++
    const bug = BUGS[(turn - 1) % BUGS.length] as Bug
    const userParts: Part[] = [{ type: 'text', text: `#${100 + turn}: ${r.pick(REQUESTS)(bug)}` }]
    if (turn % 10 === 3 || r.next() < 0.03) userParts.push({ type: 'text', text: 'Screenshot attached.' }, { type: 'image', data: PNG_1X1, mediaType: 'image/png' })
    push({ role: 'user', kind: 'normal', parts: userParts })
    if (turn % 7 === 0) push({ role: 'user', kind: 'synthetic', parts: [{ type: 'text', text: 'Reminder: keep edits small and run the tests after each one.' }] })
    const steps = plan(r, bug)
    // every ninth turn (and now and then otherwise) the sandbox refuses a call: an ephemeral error
    let refuse = turn % 9 === 2
    steps.forEach((step, s) => {
      const parts: Part[] = [
        { type: 'reasoning', text: step.think, signature: sig(r) },
        { type: 'text', text: step.say },
      ]
      const ids: Array<readonly [string, Call]> = []
      step.calls.forEach((call, c) => {
        const id = `call_${turn}_${s}_${c}`
        ids.push([id, call])
        parts.push({ type: 'tool_call', id, name: call.name, arguments: JSON.stringify(call.args), status: 'complete' })
      })
      parts.push({ type: 'finish', reason: 'tool_use' })
      push({ role: 'assistant', kind: 'normal', parts, model: 'sample-model-1', provider: 'sample' })
      for (const [id, call] of ids) {
        const denied = call.name !== 'bash' && (refuse || r.next() < 0.02)
        if (denied) refuse = false
        push({
          role: 'tool',
          kind: denied ? 'ephemeral' : 'normal',
          parts: [{ type: 'tool_result', toolCallId: id, name: call.name, content: denied ? `error: ${call.name} was denied by the sandbox policy` : call.result(resultSize()), isError: denied || call.isError === true }],
        })
      }
    })
    push({
      role: 'assistant',
      kind: 'normal',
      parts: [
        { type: 'reasoning', text: `The tests in ${bug.test} pass now, so the fix holds.`, signature: sig(r) },
        { type: 'text', text: `Fixed #${100 + turn}: ${bug.cause}. I changed ${bug.files[0]} and ${bug.files[1]} to ${bug.fix}; the tests in ${bug.test} pass.` },
        { type: 'finish', reason: 'end_turn' },
      ],
      model: 'sample-model-1',
      provider: 'sample',
    })
    if (turn % 11 === 0) push({ role: 'assistant', kind: 'display', parts: [{ type: 'text', text: `Checkpoint saved after #${100 + turn}.` }] })
    if (turn % 25 === 0) push({ role: 'user', kind: 'bookmark', parts: [{ type: 'text', text: `Release ${turn / 25}` }] })
    if (turn % 13 === 0) push({ role: 'user', kind: 'metadata', parts: [], metadata: { turn, branch: 'main', costUsd: Math.round(r.next() * 100) / 100 } })
  }
  return out
}
