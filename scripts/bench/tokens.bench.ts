/**
 * Token estimation and compaction on the 20,000-message coding-agent history: a full `o200k_base`
 * estimate next to raw gpt-tokenizer on the same strings, a re-estimate after one appended turn
 * (identity cache), `planCompaction`, `renderTranscript` and a whole `compact` with the extractive
 * summariser; then the heuristics' error against `o200k_base` per content kind, and hostile inputs.
 */
import { toolResultText } from '../../src/message/tool-result-content.ts'
import { countTokens, encode } from 'gpt-tokenizer/encoding/o200k_base'
import type { Message, Messages } from '../../src/message/message.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { countMessage, countMessages } from '../../src/tokens/count.ts'
import { heuristic, smartHeuristic } from '../../src/tokens/heuristic.ts'
import { type Estimator, IMAGE_TOKENS, MESSAGE_OVERHEAD } from '../../src/tokens/message-tokens.ts'
import { compact } from '../../src/compaction/compact.ts'
import { extractiveSummarize } from '../../src/compaction/extractive.ts'
import { planCompaction } from '../../src/compaction/plan.ts'
import { renderTranscript } from '../../src/compaction/transcript.ts'
import { type ContentKind, prng, sampleText } from '../../sample/session.ts'
import { CONTENT_CLASSES, contentSample } from '../../sample/content-classes.ts'
import { benchHistory, measure, ms, type Stats, stats, table } from './lib.ts'

const PLAIN = { disallowedSpecial: new Set<string>() }

/** Every string `countMessage` estimates, in the same order (images and files aside). */
const stringsOf = (h: Messages): string[] => {
  const out: string[] = []
  for (const m of h)
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'reasoning') out.push(p.text)
      else if (p.type === 'tool_call') out.push(p.name, p.arguments)
      else if (p.type === 'tool_result') out.push(toolResultText(p))
    }
  return out
}

const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`
const mbps = (chars: number, millis: number): string => `${(chars / 1e3 / millis).toFixed(1)} M chars/s`

/** A new turn: a request, a call, its result, a conclusion (fresh objects every time). */
let turnNo = 0
const newTurn = (): Message[] => {
  const t = ++turnNo
  return [
    { id: `bench-u${t}`, role: 'user', kind: 'normal', parts: [{ type: 'text', text: `Turn ${t}: now run the tests and fix what fails.` }] },
    {
      id: `bench-a${t}`,
      role: 'assistant',
      kind: 'normal',
      parts: [{ type: 'text', text: 'Running them.' }, {
        type: 'tool_call',
        id: `bench-c${t}`,
        name: 'bash',
        arguments: '{"cmd":"npm test"}',
        status: 'complete',
      }],
    },
    {
      id: `bench-r${t}`,
      role: 'tool',
      kind: 'normal',
      parts: [{ type: 'tool_result', toolCallId: `bench-c${t}`, name: 'bash', content: sampleText(prng(t), 'logs', 3_000), isError: false }],
    },
    { id: `bench-d${t}`, role: 'assistant', kind: 'normal', parts: [{ type: 'text', text: 'All green.' }] },
  ]
}

const KIND_OF_TOOL: Readonly<Record<string, ContentKind>> = {
  read_file: 'code',
  grep: 'code',
  edit_file: 'code',
  bash: 'logs',
  list_dir: 'json',
  fetch_docs: 'prose',
  translate: 'cjk',
}

export default async function tokensBench(): Promise<void> {
  const h = benchHistory()
  const o200k = await loadEstimator('o200k_base')
  const strings = stringsOf(h)
  const chars = strings.reduce((a, s) => a + s.length, 0)

  // --- full estimate: ours (cold cache every run) against raw gpt-tokenizer on the same strings ---
  const fresh = (): Estimator => (s) => o200k(s) // a new identity: an empty cache
  let ours = 0
  let raw = 0
  // Warm gpt-tokenizer once (JIT, its merge cache), then time the three in turn, round after round,
  // so that each sees the same machine state.
  for (const s of strings) countTokens(s, PLAIN)
  const samples: [number[], number[], number[]] = [[], [], []]
  const time = (i: 0 | 1 | 2, fn: () => void): void => {
    const t0 = performance.now()
    fn()
    samples[i].push(performance.now() - t0)
  }
  for (let round = 0; round < 2; round++) {
    time(0, () => {
      raw = 0
      for (const s of strings) raw += encode(s, PLAIN).length
    })
    time(1, () => {
      let n = 0
      for (const s of strings) n += countTokens(s, PLAIN)
      raw = n
    })
    time(2, () => {
      ours = countMessages(fresh())(h)
    })
  }
  const [rawEncode, rawCount, full] = samples.map(stats) as [Stats, Stats, Stats]
  table(
    `Full o200k_base estimate of the ${h.length.toLocaleString('en')}-message history (${(chars / 1e6).toFixed(1)} M chars, cold cache)`,
    ['what', 'median ms', 'throughput', 'tokens', 'vs raw encode'],
    [
      ['gpt-tokenizer encode, raw (throws on special tokens unless told)', ms(rawEncode.median), mbps(chars, rawEncode.median), raw.toLocaleString('en'), '—'],
      [
        'gpt-tokenizer countTokens, raw',
        ms(rawCount.median),
        mbps(chars, rawCount.median),
        raw.toLocaleString('en'),
        pct(rawCount.median / rawEncode.median - 1),
      ],
      [
        'chatfold countMessages(o200k_base), per-message breakdown',
        ms(full.median),
        mbps(chars, full.median),
        ours.toLocaleString('en'),
        pct(full.median / rawEncode.median - 1),
      ],
    ],
  )
  const images = h.reduce((a, m) => a + m.parts.filter((p) => p.type === 'image').length, 0)
  const framing = h.length * MESSAGE_OVERHEAD + images * IMAGE_TOKENS
  console.log(
    `(chatfold counts ${framing.toLocaleString('en')} more for framing: ${h.length.toLocaleString('en')} messages × ${MESSAGE_OVERHEAD} + ${images} images × ${
      IMAGE_TOKENS.toLocaleString('en')
    }; and differs from the raw count by ${(ours - raw - framing).toLocaleString('en')} beyond that)`,
  )

  // --- incremental, planning, transcript, compact (cache warm: a counter kept, as a session keeps one) ---
  const count = countMessages(o200k)
  count(h)
  const counter = countMessage(o200k)
  const total = (m: Message): number => counter(m).total
  for (const m of h) total(m)
  let grown: Messages = h
  const again = await measure(() => {
    grown = [...h, ...newTurn()]
    return count(grown)
  }, { runs: 30, warmup: 5 })
  const unchanged = await measure(() => count(h), { runs: 30, warmup: 5 })
  let head: Messages = []
  const plan = await measure(() => (head = planCompaction({ keepRecentTokens: 20_000, estimate: o200k, count: total })(h).head), { runs: 10, warmup: 2 })
  let transcriptChars = 0
  const transcript = await measure(() => (transcriptChars = renderTranscript({ maxResultLen: 2_000 })(head).length), { runs: 5, warmup: 1 })
  let report = ''
  const whole = await measure(async () => {
    const r = await compact({ summarize: extractiveSummarize, keepRecentTokens: 20_000, estimate: o200k, count: total })(h)
    report = `${r.report.tokensBefore.toLocaleString('en')} → ${r.report.tokensAfter.toLocaleString('en')} tokens, ${
      r.report.summarised.toLocaleString('en')
    } messages summarised, ${r.report.preserved} kept`
  }, { runs: 3, warmup: 1 })
  table(
    'Estimate again and compact (o200k_base, counts cached by message identity in a kept counter)',
    ['operation', 'median ms', 'p95 ms', 'note'],
    [
      ['countMessages after appending one turn (4 new messages)', ms(again.median), ms(again.p95), 'target < 5 ms'],
      ['countMessages, the same history again', ms(unchanged.median), ms(unchanged.p95), ''],
      ['planCompaction({ keepRecentTokens: 20,000 })', ms(plan.median), ms(plan.p95), `head ${head.length.toLocaleString('en')} messages`],
      ['renderTranscript({ maxResultLen: 2,000 })(head)', ms(transcript.median), ms(transcript.p95), `${(transcriptChars / 1e6).toFixed(1)} M chars`],
      ['compact({ summarize: extractiveSummarize })', ms(whole.median), ms(whole.p95), report],
    ],
  )

  // --- the heuristics against o200k_base, per content kind of the history's tool results ---
  const byKind = new Map<ContentKind, string[]>()
  for (const m of h)
    for (const p of m.parts)
      if (p.type === 'tool_result' && m.kind === 'normal') {
        const kind = KIND_OF_TOOL[p.name ?? '']
        if (kind !== undefined) byKind.set(kind, [...(byKind.get(kind) ?? []), toolResultText(p)])
      }
  const rows: string[][] = []
  for (const [kind, texts] of [...byKind].sort()) {
    const sample = texts.slice(0, 400)
    let exact = 0
    let quarter = 0
    let smart = 0
    let len = 0
    for (const s of sample) {
      exact += o200k(s)
      quarter += heuristic(s)
      smart += smartHeuristic(s)
      len += s.length
    }
    const joined = sample.join('\n')
    const tSmart = await measure(() => smartHeuristic(joined), { runs: 5, warmup: 1 })
    rows.push([kind, sample.length.toString(), (len / exact).toFixed(2), pct(quarter / exact - 1), pct(smart / exact - 1), mbps(joined.length, tSmart.median)])
  }
  table('Heuristics against o200k_base, per content kind (tool results of the history)', [
    'kind',
    'results',
    'chars/token',
    'chars / 4',
    'smartHeuristic',
    'smartHeuristic speed',
  ], rows)

  // --- the default estimate's floor: smartHeuristic against o200k_base on each content class ---
  const classRows: string[][] = []
  let allChars = 0
  let allMs = 0
  for (const cls of CONTENT_CLASSES) {
    const texts = [2_000, 20_000].flatMap((size) => Array.from({ length: 6 }, (_, seed) => contentSample(cls, 1_000 * seed + size, size)))
    const ratios = texts.map((s) => smartHeuristic(s) / countTokens(s, PLAIN))
    const joined = texts.join('\n')
    const t = await measure(() => smartHeuristic(joined), { runs: 5, warmup: 1 })
    allChars += joined.length
    allMs += t.median
    const mean = ratios.reduce((a, r) => a + r, 0) / ratios.length
    classRows.push([
      cls,
      (joined.length / countTokens(joined, PLAIN)).toFixed(2),
      Math.min(...ratios).toFixed(3),
      mean.toFixed(3),
      Math.max(...ratios).toFixed(3),
      mbps(joined.length, t.median),
    ])
  }
  table(
    'smartHeuristic against o200k_base per content class (sample/content-classes.ts: 6 samples of 2,000 and 6 of 20,000 characters each; the floor test asserts min >= 0.97)',
    ['class', 'chars/token', 'min ratio', 'mean ratio (the over-count)', 'max ratio', 'speed'],
    classRows,
  )
  console.log(
    `(smartHeuristic over all the classes: ${mbps(allChars, allMs)}; Anthropic and Google read the same ratios times their calibration, DEFAULT_CALIBRATION)`,
  )

  // --- hostile inputs: raw gpt-tokenizer against chatfold's estimator, then chatfold alone at 1 MB ---
  let seed = 7
  const random = (alphabet: string, n: number): string => {
    let s = ''
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      s += alphabet[seed % alphabet.length]
    }
    return s
  }
  const SMALL = 20_000 // characters: the raw tokenizer finishes in seconds at most
  const LARGE = 1_000_000
  const hostile: ReadonlyArray<readonly [string, (n: number) => string]> = [
    ['"|─" (a table border)', (n) => '|─'.repeat(n / 2)],
    ['"!§"', (n) => '!§'.repeat(n / 2)],
    ['"-😀"', (n) => '-😀'.repeat(n / 3)],
    ['".©"', (n) => '.©'.repeat(n / 2)],
    ['space and U+FEFF', (n) => ' \ufeff'.repeat(n / 2)],
    ['box drawing and punctuation, random', (n) => random('─│┌┐└┘├┤┬┴┼═║|+-=:.', n)],
    ['"a" (base64 of zeroed bytes)', (n) => 'a'.repeat(n)],
    ['spaces', (n) => ' '.repeat(n)],
    ['"="', (n) => '='.repeat(n)],
    ['CJK, no punctuation', (n) => '会话历史需要压缩'.repeat(n / 8)],
    ['random lower-case letters', (n) => random('abcdefghijklmnopqrstuvwxyz', n)],
    ['special tokens in text', (n) => '<|endoftext|> <|im_start|>user\n'.repeat(n / 31)],
    ['ordinary logs (no long pre-token)', (n) => sampleText(prng(3), 'logs', n)],
  ]
  const hostileRows: string[][] = []
  let worst = { name: '', usPerChar: 0 }
  for (const [name, make] of hostile) {
    const small = make(SMALL)
    const t0 = performance.now()
    const exact = countTokens(small, PLAIN)
    const rawMs = performance.now() - t0
    let got = 0
    const ourSmall = await measure(() => (got = o200k(small)), { runs: 3, warmup: 1 })
    const large = make(LARGE)
    const t1 = performance.now()
    o200k(large)
    const largeMs = performance.now() - t1
    const usPerChar = (largeMs * 1e3) / large.length
    if (usPerChar > worst.usPerChar) worst = { name, usPerChar }
    hostileRows.push([name, ms(rawMs), ms(ourSmall.median), got === exact ? 'equal' : `${got} ≠ ${exact}`, ms(largeMs), usPerChar.toFixed(2)])
  }
  table(
    `Hostile input: raw gpt-tokenizer countTokens (one cold call) against chatfold's o200k_base estimator, ${
      SMALL.toLocaleString('en')
    } characters; then chatfold alone on ${LARGE.toLocaleString('en')}`,
    ['input', 'raw ms', 'chatfold ms', 'count', `chatfold ms, ${(LARGE / 1e6).toFixed(0)} M chars`, 'µs/char'],
    hostileRows,
  )
  console.log(
    `(worst case at 1 M characters: ${worst.name}, ${worst.usPerChar.toFixed(2)} µs a character; the raw tokenizer is quadratic on each of the first ten)`,
  )
}
