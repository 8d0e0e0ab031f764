/**
 * The request count against the usage sessions recorded: for every reply of a session file that
 * carries a report, the request that produced it is rebuilt from the file (the messages before it),
 * and each count is set against the prompt tokens the provider reported: chatfold's
 * `countModelRequest` uncalibrated (the exact o200k_base count, and the default `smartHeuristic`),
 * calibrated by `DEFAULT_CALIBRATION` and by `calibrationFromUsage` learnt from the session's earlier
 * reports only, anchored on the previous report of the same model (`usageCorrected`), and
 * ai-tokenizer's model-aware count of the same messages (converted with `toModelMessages`), whole
 * and anchored the same way. Then the speed of both counters on the same requests and on the
 * 20,000-message bench history, in the same run.
 *
 * The sessions are the fixtures of test/fixtures (written for the tests in the shape of real files:
 * their usage figures are not the providers' measurements, so the errors show the method), or the
 * files under `BENCH_SESSIONS` (a folder of Claude Code, Codex, Gemini CLI or opencode session files).
 */
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import Tokenizer, { models } from 'ai-tokenizer'
import { count as peerCount } from 'ai-tokenizer/sdk'
import * as encodings from 'ai-tokenizer/encoding'
import type { ModelMessage } from 'ai'
import type { Messages } from '../../src/message/message.ts'
import type { Vendor } from '../../src/adapters/vocabulary.ts'
import { calibrationFromUsage, countModelRequest, DEFAULT_CALIBRATION } from '../../src/counting/count.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { usageCorrected } from '../../src/tokens/usage.ts'
import { loadEstimator } from '../../src/tokenizer/load.ts'
import { smartHeuristic } from '../../src/tokens/heuristic.ts'
import { type Estimator } from '../../src/tokens/message-tokens.ts'
import { benchHistory, measure, ms, pairedRatios, stats, table } from './lib.ts'
import {
  fitLine,
  type LeftOut,
  loadSession,
  peerModel,
  type RecordedRequest,
  recordedRequests,
  sessionFiles,
  type SessionFormat,
  withPromptAsInput,
} from './usage-sessions.ts'

type ModelKey = keyof typeof models
const MODEL_KEYS = Object.keys(models)
const isModelKey = (k: string): k is ModelKey => k in models
/** ai-tokenizer's model for a provider when the reply's own model is not in its table. */
const PEER_FALLBACK: Readonly<Record<Vendor, string>> = { anthropic: 'anthropic/claude-sonnet-4.5', openai: 'openai/gpt-5', google: 'google/gemini-2.5-pro' }

type EncodingName = keyof typeof encodings
const isEncoding = (e: string): e is EncodingName => e in encodings
/**
 * ai-tokenizer's `count` is typed with its own declaration of the `Tokenizer` class (private fields
 * and all), which the package's exported class is not assignable to, though it is that class: the
 * instance is checked, not cast.
 */
type PeerTokenizer = Parameters<typeof peerCount>[0]['tokenizer']
const isPeerTokenizer = (t: unknown): t is PeerTokenizer => t instanceof Tokenizer
const newTokenizer = (encoding: EncodingName): PeerTokenizer => {
  const t = new Tokenizer(encodings[encoding])
  if (!isPeerTokenizer(t)) throw new TypeError('ai-tokenizer: not its Tokenizer')
  return t
}
const tokenizers = new Map<string, PeerTokenizer>()
const tokenizerFor = (encoding: EncodingName): PeerTokenizer => {
  let t = tokenizers.get(encoding)
  if (t === undefined) tokenizers.set(encoding, t = newTokenizer(encoding))
  return t
}

/** A request ready for both counters: chatfold's messages, and the same as AI SDK model messages. */
type Prepared = RecordedRequest & {
  readonly session: string
  readonly format: SessionFormat
  readonly learnt?: number
  readonly peer?: { readonly key: ModelKey; readonly exact: boolean; readonly messages: ModelMessage[] }
  readonly peerError?: string
}

type Figures = {
  readonly o200k: number
  readonly heuristic: number
  readonly calibrated: number
  readonly learnt: number
  readonly anchored?: number
  readonly peer?: number
  readonly peerAnchored?: number
}

const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)}%`
/** An estimate against the reported figure: the count and its error. */
const cell = (n: number | undefined, reported: number): string => (n === undefined ? '—' : `${n.toLocaleString('en')} ${signed(n / reported - 1)}`)

const peerMessages = (ms: Messages): E.Either<string, ModelMessage[]> => {
  const r = toModelMessages()(ms)
  if (E.isLeft(r)) return E.left(r.left.kind)
  const out: ModelMessage[] = r.right.request.messages
  return E.right(out)
}

const prepare = (session: string, format: SessionFormat, r: RecordedRequest): Prepared => {
  const learnt = calibrationFromUsage({})(withPromptAsInput(format, r.messages))
  const model = peerModel(MODEL_KEYS, r.provider, r.reply.model, PEER_FALLBACK)
  const converted = peerMessages(r.messages)
  const base = { ...r, session, format, ...(learnt === undefined ? {} : { learnt }) }
  if (E.isLeft(converted)) return { ...base, peerError: converted.left }
  if (!isModelKey(model.key)) return { ...base, peerError: `no model ${model.key}` }
  return { ...base, peer: { key: model.key, exact: model.exact, messages: converted.right } }
}

const peerResult = (p: Prepared): ReturnType<typeof peerCount> | undefined => {
  if (p.peer === undefined) return undefined
  const model = models[p.peer.key]
  const encoding = model.encoding
  if (!isEncoding(encoding)) return undefined
  return peerCount({ tokenizer: tokenizerFor(encoding), model: { ...model, encoding }, messages: p.peer.messages })
}

/**
 * ai-tokenizer anchored as `usageCorrected` is: the previous report plus its count of the messages
 * after the reported reply, taken from its per-message breakdown (when the conversion gave one model
 * message for each message, so that the two line up).
 */
const peerAnchored = (p: Prepared, result: ReturnType<typeof peerCount> | undefined): number | undefined => {
  const previous = p.previous
  if (previous === undefined || result === undefined || result.messages.length !== p.messages.length) return undefined
  const at = p.messages.findIndex((m) => m.id === previous.messageId)
  if (at < 0) return undefined
  return previous.prompt + previous.output + result.messages.slice(at + 1).reduce((a, m) => a + m.total, 0)
}

const figuresOf = (p: Prepared, o200k: Estimator): Figures => {
  const request = { messages: p.messages }
  const anchored = p.previous === undefined
    ? undefined
    : usageCorrected({ usage: { messageId: p.previous.messageId, tokens: p.previous.prompt + p.previous.output }, estimate: smartHeuristic })(p.messages)
  const result = peerResult(p)
  const peer = result?.total
  const peerAnchor = peerAnchored(p, result)
  return {
    o200k: countModelRequest(p.provider, { calibration: 1, estimate: o200k })(request).total,
    heuristic: countModelRequest(p.provider, { calibration: 1 })(request).total,
    calibrated: countModelRequest(p.provider)(request).total,
    learnt: countModelRequest(p.provider, { calibration: p.learnt ?? DEFAULT_CALIBRATION[p.provider] })(request).total,
    ...(anchored === undefined ? {} : { anchored }),
    ...(peer === undefined ? {} : { peer }),
    ...(peerAnchor === undefined ? {} : { peerAnchored: peerAnchor }),
  }
}

/** `×median ratio (median |error|, p95 |error|, requests)` of one method's counts against the reported figures. */
const summary = (pairs: ReadonlyArray<readonly [number | undefined, number]>): string => {
  const rs = pairs.flatMap(([n, reported]) => (n === undefined ? [] : [n / reported]))
  if (rs.length === 0) return '—'
  const off = stats(rs.map((r) => Math.abs(r - 1)))
  const pc = (x: number): string => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`
  return `×${stats(rs).median.toFixed(2)} (${pc(off.median)}, ${pc(off.p95)}, ${rs.length})`
}

const charsOf = (ms: Messages): number => {
  let n = 0
  for (const m of ms)
    for (const p of m.parts) {
      if (p.type === 'text' || p.type === 'reasoning') n += p.text.length
      else if (p.type === 'tool_call') n += p.name.length + p.arguments.length
      else if (p.type === 'tool_result') n += p.content.length
    }
  return n
}

export default async function usageBench(): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url))
  const fixtures = join(here, '..', '..', 'test', 'fixtures')
  const own = process.env['BENCH_SESSIONS']
  const root = own !== undefined && own !== '' ? own : fixtures
  const o200k = await loadEstimator('o200k_base')

  // --- the sessions and their requests ---
  const prepared: Prepared[] = []
  const unread: string[] = []
  const left: LeftOut = { subconversation: 0, noPrompt: 0, noProvider: 0 }
  const add = (a: LeftOut): void => {
    Object.assign(left, {
      subconversation: left.subconversation + a.subconversation,
      noPrompt: left.noPrompt + a.noPrompt,
      noProvider: left.noProvider + a.noProvider,
    })
  }
  let sessions = 0
  for (const path of sessionFiles(root)) {
    const s = loadSession(path)
    const name = relative(root, path)
    if (E.isLeft(s)) {
      unread.push(`${name}: ${s.left}`)
      continue
    }
    const { requests, leftOut } = recordedRequests(s.right.format, s.right.messages)
    add(leftOut)
    if (requests.length === 0) continue
    sessions++
    const short = name.length > 28 ? `${name.slice(0, 25)}…` : name
    for (const r of requests) prepared.push(prepare(short, s.right.format, r))
  }
  console.log(
    `\nSessions: ${
      own === undefined || own === ''
        ? 'the test fixtures (their usage figures are written in the shape of real files, not measured: the errors show the method, not the providers)'
        : 'the files under BENCH_SESSIONS'
    }; ${sessions} with recorded usage, ${prepared.length} requests rebuilt.` +
      ` None of the formats records the tool definitions sent, and Claude Code's files not its system prompt: the reported prompts hold that fixed part, which no count of the file's messages sees.` +
      ` Replies with usage left out: ${left.subconversation} of sub-conversations, ${left.noPrompt} reporting no prompt (a client's own error record), ${left.noProvider} of an unknown provider.`,
  )
  if (unread.length > 0) console.log(`Not read: ${unread.join('; ')}`)
  if (prepared.length === 0) return

  // --- each request: the counts against the reported prompt ---
  const figures = prepared.map((p) => figuresOf(p, o200k))
  table(
    'Prompt tokens of each recorded request: reported, and each count with its error against it',
    [
      'session',
      'model (ai-tokenizer model)',
      'messages',
      'reported',
      'o200k ×1',
      'chatfold ×1',
      'DEFAULT_CALIBRATION',
      'calibrationFromUsage',
      'usageCorrected',
      'ai-tokenizer',
      'ai-tokenizer anchored',
    ],
    prepared.map((p, i) => {
      const f = figures[i] as Figures
      const peer = p.peer === undefined ? `(${p.peerError ?? 'none'})` : `(${p.peer.key.replace(/^[a-z]+\//, '')}${p.peer.exact ? '' : '?'})`
      return [
        p.session,
        `${p.reply.model ?? p.provider} ${peer}`,
        p.messages.length.toString(),
        p.reported.toLocaleString('en'),
        cell(f.o200k, p.reported),
        cell(f.heuristic, p.reported),
        `${cell(f.calibrated, p.reported)} (×${DEFAULT_CALIBRATION[p.provider]})`,
        `${cell(f.learnt, p.reported)} (${p.learnt === undefined ? 'no earlier report' : `×${p.learnt.toFixed(2)}`})`,
        cell(f.anchored, p.reported),
        cell(f.peer, p.reported),
        cell(f.peerAnchored, p.reported),
      ]
    }),
  )
  console.log(
    '(calibrationFromUsage learns from the reports before the request only; usageCorrected and "ai-tokenizer anchored" add to the previous report of the same model their count of the messages after it; a "?" after the ai-tokenizer model: the reply\'s own model is not in its table, and the newest of its family or the provider\'s default stands in)',
  )

  const byFormat = new Map<string, number[]>()
  prepared.forEach((p, i) => byFormat.set(`${p.format}, ${p.provider}`, [...(byFormat.get(`${p.format}, ${p.provider}`) ?? []), i]))
  const pick = (is: ReadonlyArray<number>, f: (x: Figures) => number | undefined) =>
    is.map((i) => [f(figures[i] as Figures), (prepared[i] as Prepared).reported] as const)
  const groups = [...byFormat, ['all', prepared.map((_, i) => i)] as const]
  table(
    'Per source: the median of count / reported (the median and 95th percentile of the error, the requests counted)',
    ['source', 'o200k ×1', 'chatfold ×1', 'DEFAULT_CALIBRATION', 'calibrationFromUsage', 'usageCorrected', 'ai-tokenizer', 'ai-tokenizer anchored'],
    groups.map(([name, is]) => [
      name,
      summary(pick(is, (f) => f.o200k)),
      summary(pick(is, (f) => f.heuristic)),
      summary(pick(is, (f) => f.calibrated)),
      summary(pick(is, (f) => f.learnt)),
      summary(pick(is, (f) => f.anchored)),
      summary(pick(is, (f) => f.peer)),
      summary(pick(is, (f) => f.peerAnchored)),
    ]),
  )

  // --- what the reports say of the tokenizer and the fixed part: a line through each session's requests ---
  const bySession = new Map<string, number[]>()
  prepared.forEach((p, i) => {
    const key = `${p.session}\u0000${p.reply.model ?? p.provider}`
    bySession.set(key, [...(bySession.get(key) ?? []), i])
  })
  const fitRows: string[][] = []
  for (const [key, is] of bySession) {
    const [session, model] = key.split('\u0000')
    const line = (f: (x: Figures) => number) => fitLine(is.map((i) => [f(figures[i] as Figures), (prepared[i] as Prepared).reported] as const))
    const exact = line((f) => f.o200k)
    const heuristic = line((f) => f.heuristic)
    if (exact === undefined || heuristic === undefined) continue
    const reported = is.map((i) => (prepared[i] as Prepared).reported)
    fitRows.push([
      session ?? '',
      model ?? '',
      is.length.toString(),
      `${Math.min(...reported).toLocaleString('en')}–${Math.max(...reported).toLocaleString('en')}`,
      `×${exact.ratio.toFixed(2)}`,
      Math.round(exact.fixed).toLocaleString('en'),
      `×${heuristic.ratio.toFixed(2)}`,
      Math.round(heuristic.fixed).toLocaleString('en'),
    ])
  }
  if (fitRows.length > 0) {
    table(
      "Each session's requests (3 or more of one model) fitted as reported = fixed + ratio × count: the tokens each counted token brings, and what every request carries that the file does not hold (the whole session, described: not a prediction)",
      ['session', 'model', 'requests', 'reported', 'ratio to o200k ×1', 'fixed', 'ratio to chatfold ×1', 'fixed'],
      fitRows,
    )
  }

  // --- speed on the same requests ---
  const counted = prepared.filter((p) => p.peer !== undefined)
  const chars = counted.reduce((a, p) => a + charsOf(p.messages), 0)
  // many runs of small requests (the fixtures), a few of long sessions' (each prompt counted whole)
  const runs = chars < 1e6 ? { runs: 30, warmup: 5 } : { runs: 3, warmup: 1 }
  const ours = await measure(() => {
    for (const p of counted) countModelRequest(p.provider)({ messages: p.messages })
  }, runs)
  const oursExact = await measure(() => {
    for (const p of counted) countModelRequest(p.provider, { estimate: o200k })({ messages: p.messages })
  }, runs)
  const peer = await measure(() => {
    for (const p of counted) peerResult(p)
  }, runs)
  const convert = await measure(() => {
    for (const p of counted) peerMessages(p.messages)
  }, runs)
  table(
    `Counting the ${counted.length} rebuilt requests (${(chars / 1e3).toFixed(0)} k chars), all of them once a run, ${runs.runs} runs, warm`,
    ['counter', 'median ms', 'p95 ms', 'vs chatfold (smartHeuristic)'],
    [
      ['chatfold countModelRequest (smartHeuristic, the default)', ms(ours.median), ms(ours.p95), '1.0×'],
      ['chatfold countModelRequest (o200k_base, exact)', ms(oursExact.median), ms(oursExact.p95), `${(oursExact.median / ours.median).toFixed(1)}×`],
      ["ai-tokenizer count (each reply's model and encoding)", ms(peer.median), ms(peer.p95), `${(peer.median / ours.median).toFixed(1)}×`],
      ['(toModelMessages, the conversion ai-tokenizer needs)', ms(convert.median), ms(convert.p95), ''],
    ],
  )

  // --- speed on the bench history, in one run: rounds in turn, fresh caches ---
  const h = benchHistory()
  const hChars = charsOf(h)
  const converted = peerMessages(h)
  if (E.isLeft(converted)) {
    console.log(`(the bench history does not convert to model messages: ${converted.left})`)
    return
  }
  const gpt = models['openai/gpt-5']
  const claude = models['anthropic/claude-sonnet-4.5']
  const samples: [number[], number[], number[], number[]] = [[], [], [], []]
  const totals = [0, 0, 0, 0]
  const time = (i: 0 | 1 | 2 | 3, fn: () => number): void => {
    const t0 = performance.now()
    totals[i] = fn()
    samples[i].push(performance.now() - t0)
  }
  for (let round = 0; round < 5; round++) {
    // a new tokenizer every round: ai-tokenizer's merge cache starts empty, as chatfold's estimators hold none
    const o200kPeer = newTokenizer('o200k_base')
    const claudePeer = newTokenizer('claude')
    const fresh: Estimator = (s) => o200k(s)
    time(0, () => countModelRequest('openai', { estimate: fresh, calibration: 1 })({ messages: h }).total)
    time(1, () => peerCount({ tokenizer: o200kPeer, model: { ...gpt, encoding: 'o200k_base' }, messages: converted.right }).total)
    time(2, () => countModelRequest('anthropic')({ messages: h }).total)
    time(3, () => peerCount({ tokenizer: claudePeer, model: { ...claude, encoding: 'claude' }, messages: converted.right }).total)
  }
  const [s0, s1, s2, s3] = samples
  table(
    `Counting the ${h.length.toLocaleString('en')}-message bench history (${(hChars / 1e6).toFixed(1)} M chars), ${s0.length} rounds in turn in one run`,
    ['counter', 'median ms', 'tokens', 'ai-tokenizer / chatfold, per round'],
    [
      ['chatfold countModelRequest(openai, o200k_base)', ms(stats(s0).median), (totals[0] ?? 0).toLocaleString('en'), ''],
      ['ai-tokenizer count(openai/gpt-5, o200k_base)', ms(stats(s1).median), (totals[1] ?? 0).toLocaleString('en'), pairedRatios(s1, s0)],
      ['chatfold countModelRequest(anthropic) (smartHeuristic × 1.25)', ms(stats(s2).median), (totals[2] ?? 0).toLocaleString('en'), ''],
      [
        'ai-tokenizer count(anthropic/claude-sonnet-4.5, its claude encoding × 1.1)',
        ms(stats(s3).median),
        (totals[3] ?? 0).toLocaleString('en'),
        pairedRatios(s3, s2),
      ],
    ],
  )
  console.log(
    "(ai-tokenizer counts text, tool calls and results, and 85 per image; it leaves reasoning out, and counts a tool's input schema only when it is a Zod schema)",
  )
}
