/**
 * The requests a session file records usage for, rebuilt for the usage bench: which tool wrote a
 * file, its history, and for each reply of the main conversation that carries a report, the
 * messages that were its prompt and the prompt tokens the provider reported for it.
 *
 * What the files do not hold cannot be rebuilt: none of the four formats records the tool
 * definitions sent, and Claude Code's files do not record its system prompt either, so the reported
 * figures hold a fixed part that no count of the file's messages sees.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import * as E from 'fp-ts/Either'
import type { Message, Messages } from '../../src/message/message.ts'
import type { Vendor } from '../../src/adapters/vocabulary.ts'
import { fromClaudeCode } from '../../src/sessions/claude-code.ts'
import { forLLM } from '../../src/history/views.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { fromCodexRollout, fromGeminiCliChat, fromOpencodeExport } from '../../src/sessions/mod.ts'

export type SessionFormat = 'claude-code' | 'codex' | 'gemini-cli' | 'opencode'

const firstRecord = (text: string): unknown => {
  const line = text.split('\n', 1)[0] ?? ''
  try {
    return JSON.parse(line) as unknown
  } catch {
    return undefined
  }
}
const isRec = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === 'object' && u !== null && !Array.isArray(u)

/**
 * Which tool wrote a session file, from its content (its name as a hint): a Codex rollout opens
 * with a `session_meta` record (or, in older files, a bare session with `instructions`); a Gemini CLI
 * recording has `sessionId` and `projectHash` at the top; an `opencode export` has `info` and
 * `messages`; other JSON lines are read as Claude Code's. `undefined`: none of these.
 */
export const formatOf = (name: string, text: string): SessionFormat | undefined => {
  const trimmed = text.trimStart()
  if (name.endsWith('.json') || trimmed.startsWith('{\n') || trimmed.startsWith('{\r\n')) {
    try {
      const whole = JSON.parse(text) as unknown
      if (isRec(whole) && isRec(whole['info']) && Array.isArray(whole['messages'])) return 'opencode'
      if (isRec(whole) && typeof whole['sessionId'] === 'string' && Array.isArray(whole['messages'])) return 'gemini-cli'
      return undefined
    } catch {
      // not one JSON document: JSON lines
    }
  }
  const first = firstRecord(trimmed)
  if (!isRec(first)) return undefined
  if (first['type'] === 'session_meta' || (basename(name).startsWith('rollout-') && ('instructions' in first || 'type' in first))) return 'codex'
  if (typeof first['sessionId'] === 'string' && typeof first['projectHash'] === 'string') return 'gemini-cli'
  if (typeof first['type'] === 'string') return 'claude-code'
  return undefined
}

/** A session file read as a history (the one that would be sent now), or why it could not be. */
export const readSession = (format: SessionFormat, text: string): E.Either<string, Messages> => {
  const r = format === 'claude-code'
    ? E.map((s: { readonly messages: Messages }) => s.messages)(fromClaudeCode()(text))
    : format === 'codex'
    ? E.map((s: { readonly messages: Messages }) => s.messages)(fromCodexRollout({ badLines: 'skip' })(text))
    : format === 'gemini-cli'
    ? E.map((s: { readonly messages: Messages }) => s.messages)(fromGeminiCliChat({ badLines: 'skip' })(text))
    : E.map((s: { readonly messages: Messages }) => s.messages)(fromOpencodeExport(text))
  return E.mapLeft((f: unknown) => JSON.stringify(f).slice(0, 300))(r)
}

/** Recorded usage as the readers keep it in `metadata.usage`. */
export type Usage = { readonly input: number; readonly output: number; readonly cacheRead: number; readonly cacheWrite: number }

export const usageOf = (m: Message): Usage | undefined => {
  const u = m.metadata?.['usage']
  if (!isRec(u) || typeof u['input'] !== 'number' || typeof u['output'] !== 'number') return undefined
  const n = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0)
  return { input: u['input'], output: u['output'], cacheRead: n(u['cacheRead']), cacheWrite: n(u['cacheWrite']) }
}

/**
 * The prompt tokens a recorded usage reports: `input + cacheRead + cacheWrite` for every source,
 * since the readers keep the usage contract (Claude Code's Anthropic figures leave the cache out of
 * `input`, opencode subtracts it, and the Codex and Gemini CLI readers take the cached tokens out of
 * the input count their providers report).
 */
export const promptOf = (_format: SessionFormat, u: Usage): number => u.input + u.cacheRead + u.cacheWrite

/** The provider that counted a reply's prompt: the reader's, else guessed from the model's name. */
export const providerOf = (m: Message): Vendor | undefined => {
  const p = m.provider
  if (p === 'anthropic' || p === 'openai' || p === 'google') return p
  const model = (m.model ?? '').toLowerCase()
  if (model.includes('claude')) return 'anthropic'
  if (model.includes('gemini')) return 'google'
  if (/^(gpt|o\d|codex)/.test(model)) return 'openai'
  return undefined
}

/** One request a session records usage for. */
export type RecordedRequest = {
  readonly reply: Message
  readonly provider: Vendor
  /** The reply's prompt as rebuilt from the file: the messages before it that reach a model (`forLLM`). */
  readonly messages: Messages
  /** The prompt tokens the provider reported for it. */
  readonly reported: number
  /** The previous reply of the same conversation and model that carried a report, and its figures. */
  readonly previous?: { readonly messageId: string; readonly prompt: number; readonly output: number }
}

/** What rebuilding a session's requests left out, by reason. */
export type LeftOut = { readonly subconversation: number; readonly noPrompt: number; readonly noProvider: number }

const subconversationOf = (m: Message): string | undefined => {
  const s = m.metadata?.['subagent']
  return isRec(s) && typeof s['toolCallId'] === 'string' ? s['toolCallId'] : undefined
}

/**
 * The requests of a history's main conversation that carry a report: each reply's prompt is the
 * messages before it (from the last compaction summary on, sub-conversations left out, then as
 * `forLLM` sends them), and the previous report of the same model, if any. Replies of a sub-conversation (whose prompt is that conversation's, which the
 * readers keep as display messages), replies that report no prompt (a client's own error record),
 * and replies whose provider is not known are left out and counted.
 */
export const recordedRequests = (format: SessionFormat, ms: Messages): { readonly requests: ReadonlyArray<RecordedRequest>; readonly leftOut: LeftOut } => {
  const requests: RecordedRequest[] = []
  const leftOut = { subconversation: 0, noPrompt: 0, noProvider: 0 }
  let main: Message[] = []
  // the last report of each model: a report of another model counted another prompt (its own system
  // prompt and tools, its own tokenizer), so it anchors nothing for this one
  const previous = new Map<string, NonNullable<RecordedRequest['previous']>>()
  for (const m of ms) {
    const usage = m.role === 'assistant' ? usageOf(m) : undefined
    if (subconversationOf(m) !== undefined) {
      if (usage !== undefined) leftOut.subconversation++
      continue
    }
    if (usage !== undefined) {
      const reported = promptOf(format, usage)
      const provider = providerOf(m)
      if (reported <= 0) leftOut.noPrompt++
      else if (provider === undefined) leftOut.noProvider++
      else {
        const key = `${provider}/${m.model ?? ''}`
        const before = previous.get(key)
        // a copy: forLLM may answer the array it is given, which the next push would change
        requests.push({ reply: m, provider, messages: forLLM(main.slice()), reported, ...(before === undefined ? {} : { previous: before }) })
        previous.set(key, { messageId: m.id, prompt: reported, output: usage.output })
      }
    }
    if (isCompactionSummary(m)) main = [m]
    else main.push(m)
  }
  return { requests, leftOut }
}

/**
 * The same messages with each report's prompt as `input` alone (`cacheRead`, `cacheWrite` dropped),
 * so that a reader of `input + cacheRead + cacheWrite` (`calibrationFromUsage`) reads the prompt
 * whichever way the file's tool counted the cache.
 */
export const withPromptAsInput = (format: SessionFormat, ms: Messages): Messages =>
  ms.map((m) => {
    const u = m.role === 'assistant' ? usageOf(m) : undefined
    return u === undefined ? m : { ...m, metadata: { ...m.metadata, usage: { input: promptOf(format, u), output: u.output } } }
  })

/**
 * The ai-tokenizer model closest to a reply's model: the name with its provider, a date suffix
 * dropped and a version's dashes as dots (`claude-sonnet-4-5-20250929` → `anthropic/claude-sonnet-4.5`);
 * failing that, the newest of the same family (`claude-opus-4-6` → `anthropic/claude-opus-4.5`);
 * else the provider's `fallback`. `exact` says whether the model itself was found.
 */
export const peerModel = (
  keys: ReadonlyArray<string>,
  provider: Vendor,
  model: string | undefined,
  fallback: Readonly<Record<Vendor, string>>,
): { readonly key: string; readonly exact: boolean } => {
  const name = (model ?? '')
    .toLowerCase()
    .replace(/^[a-z-]+\//, '')
    .replace(/-\d{8}$/, '')
    .replace(/-(\d+)-(\d+)(?=$|-)/, '-$1.$2')
  const key = `${provider}/${name}`
  if (keys.includes(key)) return { key, exact: true }
  const family = `${provider}/${name.replace(/-\d[\d.]*(?:-.*)?$/, '-')}`
  const kin = keys.filter((k) => family.length > provider.length + 2 && k.startsWith(family) && /^\d/.test(k.slice(family.length))).sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: true })
  )
  const newest = kin[kin.length - 1]
  return { key: newest ?? fallback[provider], exact: false }
}

/** The bench's session files: every fixture with recorded usage, or the files under `dir` (any depth, sub-agent folders left out). */
export const sessionFiles = (dir: string): string[] => {
  const out: string[] = []
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name)
      const s = statSync(p)
      if (s.isDirectory()) {
        if (name !== 'subagents') walk(p)
      } else if (name.endsWith('.jsonl') || name.endsWith('.json')) out.push(p)
    }
  }
  walk(dir)
  return out
}

/** A session file read: its format and history, or why not. */
export const loadSession = (path: string): E.Either<string, { readonly format: SessionFormat; readonly messages: Messages }> => {
  const text = readFileSync(path, 'utf8')
  const format = formatOf(path, text)
  if (format === undefined) return E.left('not a session file of Claude Code, Codex, Gemini CLI or opencode')
  return E.map((messages: Messages) => ({ format, messages }))(readSession(format, text))
}

/**
 * The least-squares line `y = fixed + ratio × x` through points (an estimate, a reported prompt):
 * over one session's requests, `ratio` is how many reported tokens each estimated token of the
 * messages brings (the model's tokenizer against the estimator), and `fixed` what every request
 * carries that the file does not hold (system prompt, tool definitions). `undefined` under three
 * points or when every x is the same.
 */
export const fitLine = (points: ReadonlyArray<readonly [number, number]>): { readonly fixed: number; readonly ratio: number } | undefined => {
  const n = points.length
  if (n < 3) return undefined
  let sx = 0
  let sy = 0
  for (const [x, y] of points) {
    sx += x
    sy += y
  }
  const mx = sx / n
  const my = sy / n
  let sxx = 0
  let sxy = 0
  for (const [x, y] of points) {
    sxx += (x - mx) * (x - mx)
    sxy += (x - mx) * (y - my)
  }
  if (sxx === 0) return undefined
  const ratio = sxy / sxx
  return { fixed: my - ratio * mx, ratio }
}
