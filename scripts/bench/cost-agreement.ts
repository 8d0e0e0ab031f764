/**
 * `npx tsx scripts/bench/cost-agreement.ts`: `chatfold stats --cost` next to ccusage (the npm package,
 * run offline) on the same Claude Code session files, with ccusage's own prices (measured through its
 * command on probe records) given to chatfold as `--prices`, so that only what each counts differs.
 *
 * Each file is compared twice: as written, and with every record of a reply given that reply's final
 * usage. Claude Code writes one record per content block of a reply, each repeating the reply's usage,
 * and while a reply streams the early records carry a partial `output_tokens`; ccusage keeps the first
 * record of a reply (by message id and request id), chatfold the last, so on the files as written the
 * two differ by exactly the output tokens the first records lack (`expected`).
 */
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { run } from '../../src/cli/main.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const CCUSAGE = join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js')
export const CLAUDE_DIR = join(ROOT, 'test', 'fixtures', 'claude-code')

type Rec = {
  readonly type?: string
  readonly requestId?: string
  readonly message?: { readonly id?: string; readonly model?: string; readonly usage?: Readonly<Record<string, unknown>> }
}
const records = (file: string): Rec[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec)

/** The session files of the fixtures, each with the sub-agent files beside it. */
export const sessionFiles = (): ReadonlyArray<{ readonly file: string; readonly agents: ReadonlyArray<string> }> =>
  readdirSync(CLAUDE_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const dir = join(CLAUDE_DIR, basename(f, '.jsonl'), 'subagents')
      return { file: join(CLAUDE_DIR, f), agents: existsSync(dir) ? readdirSync(dir).map((a) => join(dir, a)) : [] }
    })

const finalUsage = (file: string): Map<string, Readonly<Record<string, unknown>>> => {
  const last = new Map<string, Readonly<Record<string, unknown>>>()
  for (const r of records(file))
    if (r.type === 'assistant' && r.message?.id !== undefined && r.message.usage !== undefined) last.set(`${r.message.id}:${r.requestId}`, r.message.usage)
  return last
}

/** The file's text with every record of a reply given that reply's last usage. */
const withFinalUsage = (file: string): string => {
  const last = finalUsage(file)
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => {
      if (l.trim() === '') return l
      const r = JSON.parse(l) as Rec
      const u = last.get(`${r.message?.id}:${r.requestId}`)
      return r.type === 'assistant' && u !== undefined ? JSON.stringify({ ...r, message: { ...r.message, usage: u } }) : l
    })
    .join('\n')
}

const ccusage = (configDir: string, command: 'daily' | 'session'): Record<string, unknown> =>
  JSON.parse(
    execFileSync(process.execPath, [CCUSAGE, command, '--json', '--offline'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: configDir, TZ: 'UTC' },
      encoding: 'utf8',
    }),
  ) as Record<string, unknown>

/** A project folder of its own for a session file (and its sub-agents), as Claude Code lays them out. */
const project = (s: { readonly file: string; readonly agents: ReadonlyArray<string> }, final: boolean): string => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-ccusage-'))
  const p = join(dir, 'projects', 'p')
  mkdirSync(p, { recursive: true })
  const copy = (from: string, to: string) => (final ? writeFileSync(to, withFinalUsage(from)) : cpSync(from, to))
  copy(s.file, join(p, basename(s.file)))
  if (s.agents.length > 0) {
    const a = join(p, basename(s.file, '.jsonl'), 'subagents')
    mkdirSync(a, { recursive: true })
    for (const f of s.agents) copy(f, join(a, basename(f)))
  }
  return dir
}

/** The models the files name (Claude Code's own stand-in `<synthetic>` aside). */
const modelsOf = (
  files: ReadonlyArray<string>,
): string[] => [
  ...new Set(
    files.flatMap((f) =>
      records(f).flatMap((r) => (r.type === 'assistant' && typeof r.message?.model === 'string' && r.message.model !== '<synthetic>' ? [r.message.model] : []))
    ),
  ),
]

/**
 * ccusage's price of each model, in USD per million tokens, measured through its command: one probe
 * session per model and kind of token, 100,000 tokens of that kind alone (under the 200K tokens above
 * which ccusage prices a kind of token at its long-context rate). ccusage has one cache write rate, so
 * both chatfold write rates get it.
 */
const PROBE = 100_000

export const ccusagePrices = (models: ReadonlyArray<string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-ccusage-probe-'))
  const kinds = { input: 'input_tokens', output: 'output_tokens', cacheRead: 'cache_read_input_tokens', cacheWrite: 'cache_creation_input_tokens' } as const
  models.forEach((model, i) => {
    for (const [kind, field] of Object.entries(kinds)) {
      const p = join(dir, 'projects', `m${i}-${kind}`)
      mkdirSync(p, { recursive: true })
      const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, [field]: PROBE }
      writeFileSync(
        join(p, 'probe.jsonl'),
        `${
          JSON.stringify({
            type: 'assistant',
            timestamp: '2026-01-01T00:00:00.000Z',
            sessionId: 'probe',
            requestId: `req_${i}_${kind}`,
            message: { id: `msg_${i}_${kind}`, model, usage },
          })
        }\n`,
      )
    }
  })
  const sessions = ccusage(dir, 'session')['sessions'] as ReadonlyArray<{ readonly sessionId: string; readonly totalCost: number }>
  rmSync(dir, { recursive: true, force: true })
  const rate = (i: number, kind: string): number => {
    const s = sessions.find((x) => x.sessionId === `m${i}-${kind}`)
    if (s === undefined) throw new Error(`ccusage priced no probe for ${models[i]} ${kind}`)
    return Math.round(s.totalCost * (1_000_000 / PROBE) * 1e6) / 1e6
  }
  return models.map((model, i) => ({
    model,
    input: rate(i, 'input'),
    output: rate(i, 'output'),
    cacheRead: rate(i, 'cacheRead'),
    cacheWrite5m: rate(i, 'cacheWrite'),
    cacheWrite1h: rate(i, 'cacheWrite'),
  }))
}

/** `chatfold stats FILE --cost --json` (with `--prices`), as the command prints it. */
export const chatfoldCost = async (file: string, prices?: string) => {
  let out = ''
  let err = ''
  const code = await run(['stats', file, '--cost', '--json', '--encoding', 'heuristic', ...(prices === undefined ? [] : ['--prices', prices])], {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    errIsTTY: false,
  })
  if (code !== 0 && code !== 1) throw new Error(`chatfold stats exited ${code}: ${err}`)
  return (JSON.parse(out) as { cost: { total: number; messages: ReadonlyArray<{ id: string; cost: number }>; unpriced: ReadonlyArray<unknown> } }).cost
}

/** What ccusage undercounts on a file as written: per reply, the output tokens its last record has over its first, at the output rate. */
const firstRecordShortfall = (files: ReadonlyArray<string>, prices: ReadonlyArray<{ model: string; output: number }>): number => {
  let usd = 0
  for (const f of files) {
    const first = new Map<string, Rec>()
    const last = new Map<string, Rec>()
    for (const r of records(f)) {
      if (r.type !== 'assistant' || r.message?.usage === undefined || r.message.id === undefined) continue
      const k = `${r.message.id}:${r.requestId}`
      if (!first.has(k)) first.set(k, r)
      last.set(k, r)
    }
    for (const [k, r] of first) {
      const rate = prices.find((p) => p.model === r.message?.model)?.output ?? 0
      usd += (((last.get(k)?.message?.usage?.['output_tokens'] as number) - (r.message?.usage?.['output_tokens'] as number)) * rate) / 1e6
    }
  }
  return usd
}

export type Agreement = {
  readonly file: string
  readonly chatfold: number
  readonly chatfoldOwnPrices: number
  readonly ccusage: number
  readonly ccusageFinal: number
  readonly expected: number
  readonly messagesSum: number
  readonly unpriced: number
}

/** Both tools on every fixture. */
export const agreement = async (): Promise<ReadonlyArray<Agreement>> => {
  const files = sessionFiles()
  const all = files.flatMap((s) => [s.file, ...s.agents])
  const prices = ccusagePrices(modelsOf(all))
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-prices-'))
  const pricesFile = join(dir, 'ccusage-prices.json')
  writeFileSync(pricesFile, JSON.stringify(prices))
  const out: Agreement[] = []
  for (const s of files) {
    const mine = await chatfoldCost(s.file, pricesFile)
    const own = await chatfoldCost(s.file)
    const asWritten = project(s, false)
    const final = project(s, true)
    const total = (d: string) => (ccusage(d, 'daily')['totals'] as { totalCost: number }).totalCost
    out.push({
      file: basename(s.file),
      chatfold: mine.total,
      chatfoldOwnPrices: own.total,
      ccusage: total(asWritten),
      ccusageFinal: total(final),
      expected: firstRecordShortfall([s.file, ...s.agents], prices),
      messagesSum: mine.messages.reduce((a, m) => a + m.cost, 0),
      unpriced: mine.unpriced.length + own.unpriced.length,
    })
    rmSync(asWritten, { recursive: true, force: true })
    rmSync(final, { recursive: true, force: true })
  }
  rmSync(dir, { recursive: true, force: true })
  return out
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const rows = await agreement()
  const usd = (n: number) => `$${n.toFixed(6)}`
  const pct = (a: number, b: number) => (b === 0 ? '—' : `${((100 * (a - b)) / b).toFixed(3)}%`)
  console.log('file | chatfold (ccusage prices) | ccusage final usage | diff | ccusage as written | diff explained by first records | chatfold own prices')
  for (const r of rows)
    console.log(
      `${r.file.slice(0, 8)} | ${usd(r.chatfold)} | ${usd(r.ccusageFinal)} | ${pct(r.chatfold, r.ccusageFinal)} | ${usd(r.ccusage)} | ${
        usd(r.chatfold - r.ccusage)
      } = ${usd(r.expected)} | ${usd(r.chatfoldOwnPrices)}`,
    )
  const sum = (k: keyof Agreement) => rows.reduce((a, r) => a + (r[k] as number), 0)
  console.log(
    `total | ${usd(sum('chatfold'))} | ${usd(sum('ccusageFinal'))} | ${pct(sum('chatfold'), sum('ccusageFinal'))} | ${usd(sum('ccusage'))} | ${
      usd(sum('chatfold') - sum('ccusage'))
    } = ${usd(sum('expected'))} | ${usd(sum('chatfoldOwnPrices'))}`,
  )
  console.log(`per-message costs sum to ${usd(sum('messagesSum'))} against the total ${usd(sum('chatfold'))}`)
}
