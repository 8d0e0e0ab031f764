/**
 * Token estimation: estimators (gpt-tokenizer's `o200k_base` and `cl100k_base`, loaded lazily, and
 * two synchronous heuristics), per-message counts with the `{ total, content, thinking, tools }`
 * breakdown of seed 002, cached by message identity, and the provider-usage corrections of seed 003.
 *
 * An estimator never throws and never stalls: text that looks like a special token
 * (`<|endoftext|>`, `<|im_start|>`) is counted as the plain text it is, and long runs of one
 * character class (a 50,000-letter line, base64 of zeroed bytes, a wall of spaces), which cost
 * gpt-tokenizer's merge loop quadratic time, are cut into 256-character chunks and, past eight
 * chunks, sampled (see {@link guardEstimator}).
 *
 * Importing this module does not load any ranks: `loadEstimator('o200k_base')` imports them on
 * first use (about 2 MB), so bundles that never count exact tokens never carry them.
 *
 * @module
 */
import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import type { Message, Messages } from './message.ts'
import type { Part } from './part.ts'
import type { Estimator } from './messages/prune.ts'

// `Estimator` is defined once, with pruning (`PruneOptions['estimate']`); `mod.ts` exports it from there.
export type { Estimator }

// --- constants ---

/**
 * The fixed cost of one image, in tokens: 1,600, what Anthropic charges for an image of about
 * 1.2 megapixels (its documented `width × height / 750`, at the size it scales large images down
 * to). OpenAI charges 85–1,105 for a high-detail image and Gemini 258, so the figure errs on the
 * side of a fuller context: budgets trip early rather than late.
 *
 * @example
 * import { IMAGE_TOKENS } from 'chatfold'
 * IMAGE_TOKENS // 1600
 *
 * @since 0.1.0
 * @category tokens
 */
export const IMAGE_TOKENS = 1_600

/**
 * Tokens added to each message for its framing (role markers, separators): 4, what OpenAI's chat
 * format spends per message (`<|im_start|>`, the role, `<|im_sep|>`, `<|im_end|>`).
 *
 * @example
 * import { MESSAGE_OVERHEAD } from 'chatfold'
 * MESSAGE_OVERHEAD // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const MESSAGE_OVERHEAD = 4

// --- encodings ---

/**
 * The codec of an encoding name, for values that cross a thread or network boundary.
 *
 * @example
 * import { EncodingNameC } from 'chatfold'
 * EncodingNameC.is('o200k_base') // true
 *
 * @since 0.1.0
 * @category codecs
 */
export const EncodingNameC = t.keyof({ o200k_base: null, cl100k_base: null, heuristic: null }, 'EncodingName')

/**
 * The estimators chatfold can name: gpt-tokenizer's `o200k_base` (GPT-4o and later; the default)
 * and `cl100k_base` (GPT-4, GPT-3.5), and `heuristic` (characters / 4, no ranks to load).
 *
 * @since 0.1.0
 * @category tokens
 */
export type EncodingName = t.TypeOf<typeof EncodingNameC>

/**
 * The default encoding: `o200k_base`.
 *
 * @since 0.1.0
 * @category tokens
 */
export const DEFAULT_ENCODING: EncodingName = 'o200k_base'

// --- heuristics ---

/**
 * The classic estimate: characters / 4, rounded up, as most peers use. Instant, and off by a
 * content-dependent factor (measured against `o200k_base` on a coding-agent history: code about
 * −5%, JSON −25%, logs −40%, CJK −65%, English prose +40%); see {@link smartHeuristic}.
 *
 * @example
 * import { heuristic } from 'chatfold'
 * heuristic('Hello, world!') // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const heuristic: Estimator = (text) => Math.ceil(text.length / 4)

// Character classes of the scanner below (and of the run guard).
const WS = 0
const LETTER = 1
const DIGIT = 2
const PUNCT = 3
const CJK = 4

const classOf = (c: number): number => {
  if (c < 128) {
    if (c >= 97 ? c <= 122 : c >= 65 ? c <= 90 : false) return LETTER
    if (c >= 48 && c <= 57) return DIGIT
    if (c === 32 || (c >= 9 && c <= 13)) return WS
    return PUNCT
  }
  if (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000) return WS
  if ((c >= 0x2010 && c <= 0x205e) || (c >= 0x3001 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff0f) || (c >= 0xff1a && c <= 0xff20) || (c >= 0xff3b && c <= 0xff40) || (c >= 0xff5b && c <= 0xff65)) return PUNCT
  if ((c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff66 && c <= 0xffdc)) return CJK
  return LETTER
}

// Weights of the per-content-kind heuristic, fitted (least squares on relative error) against
// o200k_base over code, JSON, logs, English prose, CJK and European-language text.
const W_WORD = 1 // per run of ASCII letters
const LONG_WORD = 12
const W_LONG_WORD = 0.33 // per letter past LONG_WORD
const W_CAMEL = 0.78 // per lower-to-upper case change inside a word
const W_DIGITS = 1.35 // per group of up to three digits
const W_BREAK = 1.55 // per line break, its indentation included
const W_SPACES = 1.65 // per run of two or more spaces inside a line
const W_PUNCT = 0.76 // per run of ASCII punctuation
const W_CJK = 0.69 // per CJK character
const W_OTHER = 0.25 // per other non-ASCII letter (accents, Cyrillic, Greek, emoji halves)
const W_UPUNCT = 1 // per non-ASCII punctuation character
const LONG_RUN = 16 // punctuation or space runs past this cost a little per character
const W_LONG_PUNCT = 1 / 16
const W_LONG_SPACES = 1 / 32

// ASCII classes of the heuristic's scanner: 0 control (tab, CR, …), 1 lower-case letter, 2 upper-case
// letter, 3 digit, 4 space, 5 line feed, 6 punctuation; 7 stands for "start of text or non-ASCII".
const ASCII = new Uint8Array(128)
for (let c = 0; c < 128; c++)
  ASCII[c] =
    c >= 97 && c <= 122 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 48 && c <= 57 ? 3 : c === 32 ? 4 : c === 10 ? 5 : (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) ? 6 : 0

const nonAsciiWeight = (c: number): number => {
  const k = classOf(c)
  return k === CJK ? W_CJK : k === PUNCT ? W_UPUNCT : k === LETTER ? W_OTHER : 0
}

/**
 * A synchronous estimate that knows what text is made of: one pass counts words (and their
 * letters past twelve), case changes inside identifiers, digit groups, punctuation runs, line
 * breaks and CJK characters, each at the weight it costs in `o200k_base`. Within ±10% of
 * `o200k_base` on each content kind of a coding-agent history (code, JSON, logs, prose, CJK;
 * measured by `npm run bench`), where characters / 4 is off by up to 65%; several times faster than
 * the tokenizer, with no ranks to load. Long runs of one character grow it linearly, so it never
 * undercounts a pathological string by much.
 *
 * @example
 * import { smartHeuristic } from 'chatfold'
 * smartHeuristic('{"id": 12345, "ok": true}')
 *
 * @since 0.1.0
 * @category tokens
 */
export const smartHeuristic: Estimator = (text) => {
  let tokens = 0
  let prev = 7 // class of the previous character
  let run = 0 // length of the current run of that class
  let indent = true // inside the indentation at the start of a line (or of the text)
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c >= 128) {
      tokens += nonAsciiWeight(c)
      prev = 7
      indent = false
      continue
    }
    const k = ASCII[c] as number
    if (k === 1 || k === 2) {
      if (prev === 1 || prev === 2) {
        if (prev === 1 && k === 2) tokens += W_CAMEL
        if (++run > LONG_WORD) tokens += W_LONG_WORD
      } else {
        tokens += W_WORD
        run = 1
      }
    } else if (k === prev) {
      run++
      if (k === 3) {
        if (run % 3 === 1) tokens += W_DIGITS
      } else if (k === 4) {
        if (!indent) tokens += run === 2 ? W_SPACES : run > LONG_RUN ? W_LONG_SPACES : 0
      } else if (k === 6) {
        if (run > LONG_RUN) tokens += W_LONG_PUNCT
      } else if (k === 5) tokens += W_BREAK
      continue
    } else {
      run = 1
      if (k === 3) tokens += W_DIGITS
      else if (k === 6) tokens += W_PUNCT
      else if (k === 5) {
        tokens += W_BREAK
        indent = true
        prev = 5
        continue
      }
    }
    if (k !== 4 && !(k === 0 && c === 9)) indent = false
    prev = k
  }
  return Math.ceil(tokens)
}

// --- guard ---

/** The longest run of one character class an exact counter is given in one piece. */
const RUN = 256
/** Runs of more than this many chunks are sampled rather than counted whole. */
const SAMPLES = 8

const safely = (count: (text: string) => number, text: string): number => {
  if (text === '') return 0
  try {
    const n = count(text)
    return Number.isFinite(n) && n >= 0 ? n : heuristic(text)
  } catch {
    return heuristic(text)
  }
}

/**
 * The end of the chunk that starts at `from`, never between the halves of a surrogate pair. A
 * chunk is `RUN` characters of ASCII, or a quarter of that beyond (up to 4 bytes a character in
 * UTF-8, which is what the merge loop works on).
 */
const chunkEnd = (s: string, from: number, size: number): number => {
  const end = Math.min(s.length, from + size)
  if (end < s.length && end > from + 1) {
    const c = s.charCodeAt(end - 1)
    if (c >= 0xd800 && c <= 0xdbff) return end - 1
  }
  return end
}

const countRun = (count: (text: string) => number, run: string): number => {
  const size = run.charCodeAt(0) < 128 ? RUN : RUN / 4
  const bounds: number[] = [0]
  for (let at = 0; at < run.length; ) bounds.push((at = chunkEnd(run, at, size)))
  const chunks = bounds.length - 1
  if (chunks <= SAMPLES) {
    let total = 0
    for (let j = 0; j < chunks; j++) total += safely(count, run.slice(bounds[j], bounds[j + 1]))
    return total
  }
  // Sample the full chunks (all but the last), scale to their length, then add the last exactly.
  const full = chunks - 1
  const fullEnd = bounds[full] ?? run.length
  let tokens = 0
  let chars = 0
  for (let j = 0; j < SAMPLES; j++) {
    const k = Math.round((j * (full - 1)) / (SAMPLES - 1))
    const from = bounds[k] ?? 0
    const to = bounds[k + 1] ?? fullEnd
    tokens += safely(count, run.slice(from, to))
    chars += to - from
  }
  return (chars === 0 ? 0 : Math.round((tokens / chars) * fullEnd)) + safely(count, run.slice(fullEnd))
}

/**
 * Makes any exact counter safe on hostile text: it never throws (a throw or a non-finite answer
 * falls back to characters / 4) and its time stays linear in the text. BPE tokenizers such as
 * gpt-tokenizer merge each pre-token in quadratic time, so one 50,000-character run of a single
 * letter takes them 2–3 s; here every run of one character class (letters, punctuation,
 * whitespace) longer than 256 characters is counted in 256-character chunks, and a run longer
 * than eight chunks is counted from eight evenly spaced chunks and scaled to its length.
 *
 * The error this adds is at most about one token per chunk boundary (under 1% of the run) for
 * chunked runs, and for sampled runs the difference between the run and its samples: nil for
 * repetitive runs (one letter, base64 of zeroed bytes, whitespace), a few percent for random
 * letters. Text without such runs is counted exactly, in one call.
 *
 * @example
 * import { guardEstimator } from 'chatfold'
 * const safe = guardEstimator((text) => text.split(/\s+/).length)
 * safe('a'.repeat(50_000))
 *
 * @since 0.1.0
 * @category tokens
 */
export const guardEstimator =
  (count: (text: string) => number): Estimator =>
  (text) => {
    const n = text.length
    if (n <= RUN) return safely(count, text)
    let total = 0
    let from = 0 // start of the text not counted yet
    let runStart = 0
    let runClass = -1
    for (let i = 0; i <= n; i++) {
      const k = i === n ? -1 : classOf(text.charCodeAt(i))
      if (k === runClass) continue
      if (i - runStart > RUN && runClass !== DIGIT) {
        total += safely(count, text.slice(from, runStart)) + countRun(count, text.slice(runStart, i))
        from = i
      }
      runStart = i
      runClass = k
    }
    return from === 0 ? safely(count, text) : total + safely(count, text.slice(from))
  }

// --- loading ---

type Encoder = { readonly countTokens: (text: string, options?: { readonly disallowedSpecial?: Set<string> }) => number }

/** Special tokens are not special in data: none is allowed, none is disallowed, all are text. */
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() }

const importEncoder = (name: Exclude<EncodingName, 'heuristic'>): Promise<Encoder> =>
  // Literal specifiers, so that bundlers split each encoding into a chunk of its own.
  name === 'cl100k_base' ? import('gpt-tokenizer/encoding/cl100k_base') : import('gpt-tokenizer/encoding/o200k_base')

const loading = new Map<EncodingName, Promise<Estimator>>()
const loaded = new Map<EncodingName, Estimator>([['heuristic', heuristic]])

/**
 * Loads a named estimator: `heuristic` at once, `o200k_base` or `cl100k_base` by importing
 * gpt-tokenizer's ranks on first use. Every call with the same name gives the same function, so
 * counts cached per estimator are shared. The tokenizer counts special-token text as plain text and
 * is wrapped in {@link guardEstimator}. Rejects with a `TypeError` for an unknown name.
 *
 * @example
 * import { loadEstimator } from 'chatfold'
 * const estimate = await loadEstimator('o200k_base')
 * estimate('Hello, world!') // 4
 *
 * @since 0.1.0
 * @category tokens
 */
export const loadEstimator = (name: EncodingName): Promise<Estimator> => {
  const ready = loaded.get(name)
  if (ready !== undefined) return Promise.resolve(ready)
  if (name !== 'o200k_base' && name !== 'cl100k_base') return Promise.reject(new TypeError(`Cannot load estimator: unknown encoding ${JSON.stringify(name)}`))
  const pending = loading.get(name)
  if (pending !== undefined) return pending
  const p = importEncoder(name).then(
    (enc) => {
      const estimate = guardEstimator((text) => enc.countTokens(text, PLAIN_TEXT))
      loaded.set(name, estimate)
      loading.delete(name)
      return estimate
    },
    (e: unknown) => {
      loading.delete(name)
      throw e
    },
  )
  loading.set(name, p)
  return p
}

/**
 * The named estimator if it is already loaded (`heuristic` always is), for synchronous code that
 * ran `loadEstimator` earlier.
 *
 * @example
 * import { loadedEstimator } from 'chatfold'
 * loadedEstimator('heuristic') // some(heuristic)
 *
 * @since 0.1.0
 * @category tokens
 */
export const loadedEstimator = (name: EncodingName): O.Option<Estimator> => O.fromNullable(loaded.get(name))

// --- counting ---

/**
 * The token count of a message with its seed-002 breakdown, every field present:
 * `total = content + thinking + tools + MESSAGE_OVERHEAD`.
 *
 * @since 0.1.0
 * @category tokens
 */
export type TokenBreakdown = {
  /** Everything, the per-message overhead included. */
  readonly total: number
  /** Text, tool-result content, images (`IMAGE_TOKENS` each), files, custom parts. */
  readonly content: number
  /** Reasoning text (redacted reasoning too: it goes back to the provider). */
  readonly thinking: number
  /** Tool calls: name plus raw arguments. */
  readonly tools: number
}

const decoder = new TextDecoder()

const isTextual = (mediaType: string): boolean => mediaType.startsWith('text/') || /[/+](json|xml|yaml|csv|javascript)\b/.test(mediaType)

const customCost = (estimate: Estimator, p: Part): number => {
  let n = 0
  for (const v of Object.values(p)) if (typeof v === 'string') n += estimate(v)
  return n
}

const breakdown = (estimate: Estimator, m: Message): TokenBreakdown => {
  let content = 0
  let thinking = 0
  let tools = 0
  for (const p of m.parts) {
    switch (p.type) {
      case 'text':
        content += estimate(p.text)
        break
      case 'reasoning':
        thinking += estimate(p.text)
        break
      case 'tool_call':
        tools += estimate(p.name) + estimate(p.arguments)
        break
      case 'tool_result':
        content += estimate(p.content)
        break
      case 'image':
        content += IMAGE_TOKENS
        break
      case 'file':
        content +=
          (p.filename === undefined ? 0 : estimate(p.filename)) +
          (p.data !== undefined && isTextual(p.mediaType) ? estimate(decoder.decode(p.data)) : IMAGE_TOKENS)
        break
      case 'finish':
        break
      default:
        content += customCost(estimate, p)
    }
  }
  return { total: content + thinking + tools + MESSAGE_OVERHEAD, content, thinking, tools }
}

const caches = new WeakMap<Estimator, WeakMap<Message, TokenBreakdown>>()

const cacheOf = (estimate: Estimator): WeakMap<Message, TokenBreakdown> => {
  let c = caches.get(estimate)
  if (c === undefined) caches.set(estimate, (c = new WeakMap()))
  return c
}

/**
 * Counts a message: text and tool results as content, reasoning as thinking, tool calls (name and
 * arguments) as tools, images at `IMAGE_TOKENS`, plus `MESSAGE_OVERHEAD`. Messages are
 * immutable, so the count is cached by message identity for each estimator: counting a history
 * again after a new turn estimates only the new messages. A file with textual data is counted on
 * its text, any other file as an image. Counts are estimates: a message's stored `tokens` (often
 * provider-reported) is not read.
 *
 * @example
 * import { countMessage, heuristic, textMessage } from 'chatfold'
 * countMessage(heuristic)(textMessage('user', 'Hello, world!')) // { total: 8, content: 4, thinking: 0, tools: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const countMessage = (estimate: Estimator): ((m: Message) => TokenBreakdown) => {
  const cache = cacheOf(estimate)
  return (m) => {
    let b = cache.get(m)
    if (b === undefined) cache.set(m, (b = breakdown(estimate, m)))
    return b
  }
}

/**
 * The total tokens of the messages given (each `countMessage(estimate)(m).total`, cached). It
 * counts every message it is given: pass `forLLM(ms)` to count what a model will see.
 *
 * @example
 * import { countMessages, heuristic, textMessage } from 'chatfold'
 * countMessages(heuristic)([textMessage('user', 'Hi'), textMessage('assistant', 'Hello!')]) // 12
 *
 * @since 0.1.0
 * @category tokens
 */
export const countMessages = (estimate: Estimator): ((ms: Messages) => number) => {
  const count = countMessage(estimate)
  return (ms) => {
    let total = 0
    for (const m of ms) total += count(m).total
    return total
  }
}

/**
 * Fills `tokens` on every message that has none with its estimated breakdown; messages that
 * already carry counts (often exact, from the provider) are kept as they are. Returns the input
 * itself when every message has counts.
 *
 * @example
 * import { heuristic, textMessage, withTokens } from 'chatfold'
 * withTokens(heuristic)([textMessage('user', 'Hello, world!')])[0]?.tokens // { total: 8, content: 4, thinking: 0, tools: 0 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const withTokens = (estimate: Estimator): ((ms: Messages) => Messages) => {
  const cache = cacheOf(estimate)
  const count = countMessage(estimate)
  return (ms) => {
    let out: Message[] | undefined
    for (let i = 0; i < ms.length; i++) {
      const m = ms[i] as Message
      if (m.tokens !== undefined) {
        out?.push(m)
        continue
      }
      out ??= ms.slice(0, i)
      const tokens = count(m)
      const filled: Message = { ...m, tokens }
      cache.set(filled, tokens) // the parts did not change, nor did the count
      out.push(filled)
    }
    return out ?? ms
  }
}

// --- provider usage ---

const resultLength = (m: Message): number => {
  let n = 0
  for (const p of m.parts) if (p.type === 'tool_result') n += p.content.length
  return n
}

/**
 * Spreads a provider-reported token delta over the tool results added since the last assistant
 * message (seed 003 `BackfillToolTokens`): a single tool message gets all of it, several share it
 * in proportion to their result content length (evenly when all are empty), in whole tokens that
 * sum to the delta. Each gets `tokens: { total: share }`. Walks back from the end and stops at
 * the first assistant message. Returns the input itself when the delta is not a positive number
 * or there is no such tool message; a fractional delta is rounded down.
 *
 * @example
 * import { backfillToolTokens, makeMessage, toolResult } from 'chatfold'
 * const result = makeMessage({ role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'ok' })] })
 * backfillToolTokens(120)([result])[0]?.tokens // { total: 120 }
 *
 * @since 0.1.0
 * @category tokens
 */
export const backfillToolTokens =
  (delta: number) =>
  (ms: Messages): Messages => {
    const total = Math.floor(delta)
    if (!(total > 0) || !Number.isFinite(total)) return ms
    const at: number[] = []
    for (let i = ms.length - 1; i >= 0; i--) {
      const m = ms[i] as Message
      if (m.role === 'assistant') break
      if (m.role === 'tool') at.push(i)
    }
    if (at.length === 0) return ms
    at.reverse()
    const lengths = at.map((i) => resultLength(ms[i] as Message))
    const sum = lengths.reduce((a, b) => a + b, 0)
    const weights = sum === 0 ? lengths.map(() => 1) : lengths
    const wsum = sum === 0 ? lengths.length : sum
    // Largest remainder: floors first, then one more token to the largest fractions.
    const exact = weights.map((w) => (total * w) / wsum)
    const shares = exact.map(Math.floor)
    let left = total - shares.reduce((a, b) => a + b, 0)
    const order = exact.map((x, j) => [x - Math.floor(x), j] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1])
    for (const [, j] of order) {
      if (left <= 0) break
      shares[j] = (shares[j] ?? 0) + 1
      left--
    }
    const out = ms.slice()
    at.forEach((i, j) => {
      out[i] = { ...(ms[i] as Message), tokens: { total: shares[j] ?? 0 } }
    })
    return out
  }

/**
 * What a provider last reported: the context tokens of the request that produced the message
 * `messageId` (prompt plus that message's output, as in `usage.input + usage.output`).
 *
 * @since 0.1.0
 * @category tokens
 */
export type ReportedUsage = { readonly messageId: string; readonly tokens: number }

/**
 * Options of {@link usageCorrected}.
 *
 * @since 0.1.0
 * @category tokens
 */
export type UsageCorrectedOptions = {
  /** The provider's last report; without it (or when its message is gone) everything is estimated. */
  readonly usage?: ReportedUsage
  /** Estimates the messages after the report; `smartHeuristic` by default. */
  readonly estimate?: Estimator
}

/**
 * The context size a provider will see: its last reported usage plus the estimate of the
 * messages after the reported one, what agents do to stay accurate between requests. Only messages
 * that reach a model are estimated (internal kinds never do). When there is no report, or the
 * reported message is no longer in the history (a compaction replaced it), the whole history is
 * estimated.
 *
 * @example
 * import { textMessage, usageCorrected } from 'chatfold'
 * const history = [textMessage('user', 'Hi', { id: 'u1' }), textMessage('assistant', 'Hello!', { id: 'a1' }), textMessage('user', 'More?')]
 * usageCorrected({ usage: { messageId: 'a1', tokens: 1_250 } })(history) // 1,250 plus the last message's estimate
 *
 * @since 0.1.0
 * @category tokens
 */
export const usageCorrected =
  (opts: UsageCorrectedOptions) =>
  (ms: Messages): number => {
    const count = countMessage(opts.estimate ?? smartHeuristic)
    const usage = opts.usage
    let at = -1
    if (usage !== undefined) for (let i = ms.length - 1; i >= 0 && at < 0; i--) if ((ms[i] as Message).id === usage.messageId) at = i
    const base = usage !== undefined && at >= 0 && Number.isFinite(usage.tokens) ? Math.max(0, usage.tokens) : 0
    let total = base
    for (let i = at + 1; i < ms.length; i++) {
      const m = ms[i] as Message
      if (m.kind !== 'display' && m.kind !== 'bookmark' && m.kind !== 'metadata') total += count(m).total
    }
    return total
  }
