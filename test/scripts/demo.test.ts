import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'chatfold-demo-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const num = (s: string | undefined): number => Number((/^[\d,]+/.exec(s ?? '')?.[0] ?? 'NaN').replace(/,/g, ''))

describe('npm start (scripts/demo.ts)', () => {
  it('prints a table in bytes whose figures the plan line and the closing sentence repeat exactly', () => {
    const run = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'demo.ts')], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 170_000,
      env: { ...process.env, CHATFOLD_DEMO_MESSAGES: '600' },
    })
    expect(run.status, run.stderr).toBe(0)
    const out = run.stdout
    const fileBytes = statSync(join(dir, 'out', 'sample-session.jsonl')).size
    const compactedBytes = statSync(join(dir, 'out', 'compacted.jsonl')).size

    const loadLine = /sample session: ([\d,]+) messages, ([\d,]+) B \([\d.]+ [MK]B\) of JSONL/.exec(out)
    expect(num(loadLine?.[2])).toBe(fileBytes)

    const row = (label: string): string[] => {
      const line = out.split('\n').find((l) => l.startsWith(label))
      expect(line, label).toBeDefined()
      return (line as string).slice(label.length).trim().split(/\s{3,}/)
    }
    const [loadedMessages, , loadedBytes] = row('loaded')
    const [openedMessages, openedTokens, openedBytes] = row('opened in the worker')
    const [compactedMessages, compactedTokens, compactedJsonl] = row('compacted')
    expect(num(loadedMessages)).toBe(num(loadLine?.[1]))
    for (const b of [loadedBytes, openedBytes, compactedJsonl]) expect(b).toMatch(/^[\d,]+ B \([\d.]+ [MK]B\)$/)
    expect(num(loadedBytes)).toBe(fileBytes)
    expect(num(openedBytes)).toBe(fileBytes) // the history re-encoded is the file
    expect(num(compactedJsonl)).toBe(compactedBytes)

    const plan = /plan: summarise ([\d,]+) messages \([\d,]+ tokens\), keep ([\d,]+) /.exec(out)
    const sentence =
      /([\d,]+) messages summarised into one, ([\d,]+) kept verbatim: ([\d,]+) → ([\d,]+) messages, ([\d,]+) → ([\d,]+) tokens, ([\d,]+) B \([^)]*\) → ([\d,]+) B \([^)]*\) of JSONL; ([\d,]+) archived(?: \(your copy keeps them\))?(?:: the ([\d,]+) summarised and ([\d,]+) no model sees)?/
        .exec(out)
    expect(plan).not.toBeNull()
    expect(sentence, out).not.toBeNull()
    const [, summarised, kept, m0, m1, t0, t1, b0, b1, archived, again, unseen] = sentence as RegExpExecArray
    expect(num(summarised)).toBe(num(plan?.[1]))
    expect(num(kept)).toBe(num(plan?.[2]))
    expect([num(m0), num(m1)]).toEqual([num(openedMessages), num(compactedMessages)])
    expect([num(t0), num(t1)]).toEqual([num(openedTokens), num(compactedTokens)])
    expect([num(b0), num(b1)]).toEqual([fileBytes, compactedBytes])
    // the new history is the system prompt, the summary and what was kept
    expect(num(m1)).toBe(1 + 1 + num(kept))
    // what was archived is what was summarised and what no model sees, nothing unexplained
    if (again === undefined) expect(num(archived)).toBe(num(summarised))
    else {
      expect(num(again)).toBe(num(summarised))
      expect(num(archived)).toBe(num(summarised) + num(unseen))
    }
  }, 180_000)
})
