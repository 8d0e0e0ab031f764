/**
 * What a person sees of a recorded history from the command line: `stats` with the usage the
 * history records, and `render` as Markdown or one HTML page, all of it or its last turns.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { recordedHistory } from '../support/recorded-history.ts'

const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

let dir = ''
let file = ''
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chatfold-transcript-'))
  file = join(dir, 'history.jsonl')
  writeFileSync(file, toJSONL(recordedHistory()))
})
afterAll(() => {
  if (dir !== '') rmSync(dir, { recursive: true, force: true })
})

describe('stats: usage as recorded', () => {
  it('--json carries the usage per model, the span and the last request next to the estimate', async () => {
    const r = await cli('stats', file, '--json', '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    const s = JSON.parse(r.out) as {
      usage: {
        byModel: Array<{ model: string; output: number; reportedPrompt: number; estimatedPrompt: number; estimatedOutput: number }>
        span: { ms: number }
        last: { messageId: string; reportedContext: number; estimatedContext: number; ratio: number }
      }
    }
    expect(s.usage.byModel.map((m) => [m.model, m.output, m.reportedPrompt])).toEqual([['claude-sonnet-4-5', 437, 19_610], ['claude-haiku-4-5', 75, 4_160]])
    expect(s.usage.byModel.every((m) => m.estimatedOutput > 0 && m.estimatedPrompt > 0)).toBe(true)
    expect(s.usage.span.ms).toBe(422_000)
    expect(s.usage.last).toMatchObject({ messageId: 'a5', reportedContext: 1_506 })
    expect(s.usage.last.ratio).toBeCloseTo(s.usage.last.estimatedContext / 1_506, 12)
  })

  it('shows them to a person: the span, a row per model and the last request with its ratio', async () => {
    const r = await cli('stats', file, '--encoding', 'heuristic')
    expect(r.code, r.err).toBe(EXIT.ok)
    expect(r.out).toContain('time: 2026-03-02T10:00:00.000Z → 2026-03-02T10:07:02.000Z (7 min 2 s)')
    expect(r.out).toMatch(/^usage as reported, per model \(est\.: heuristic; .*\):$/m)
    expect(r.out).toMatch(/^ {2}claude-sonnet-4-5 +5 +30 +437 +12,140 +7,440 +\d+% +\d+$/m)
    expect(r.out).toMatch(/^ {2}total +7 /m)
    expect(r.out).toMatch(
      /^last request \(a5, claude-sonnet-4-5\): reported prompt 1,506 \(input 6 \+ cache read 1,300 \+ cache write 200\), estimated [\d,]+ \(heuristic\), ratio \d+\.\d{3}$/m,
    )
  })
})

describe('render', () => {
  it('--format html writes one page; -o writes it to a file', async () => {
    const out = join(dir, 'page.html')
    const r = await cli('render', file, '--format', 'html', '--title', 'Cart fix', '-o', out)
    expect(r).toEqual({ code: EXIT.ok, out: '', err: '' })
    const page = readFileSync(out, 'utf8')
    expect(page).toMatch(/^<!doctype html>/)
    expect(page).toContain('<title>Cart fix</title>')
    expect(page).toContain('id="call-toolu_task"')
  })

  it('--last N keeps the last N turns, in every format', async () => {
    const md = await cli('render', file, '--last', '1')
    expect(md.out.startsWith('## User\n\n*2026-03-02 10:06:00 UTC*\n\nHere is the page after my change:')).toBe(true)
    expect(md.out).not.toContain('cart total is off')
    const html = await cli('render', file, '--format', 'html', '--last', '1')
    expect(html.out).toContain('1 turn')
    expect(html.out).not.toContain('id="m-u1"')
    const all = await cli('render', file, '--format', 'text', '--last', '5')
    expect(all.out).toContain('cart total is off')
    expect(all.out).not.toContain('You are a coding assistant')
    expect((await cli('render', file, '--last', 'two')).code).toBe(EXIT.usage)
  })

  it('Markdown shows models and times, with a message heading below the sections', async () => {
    const r = await cli('render', file)
    expect(r.out).toContain('## Assistant\n\n*claude-sonnet-4-5 · 2026-03-02 10:01:40 UTC*\n\n### Cause\n')
    expect(r.out.split('\n').filter((l) => l.startsWith('# '))).toEqual([])
  })

  it('formats lists what --from and --to take', async () => {
    const r = await cli('formats', '--json')
    expect(r.code, r.err).toBe(EXIT.ok)
    const f = JSON.parse(r.out) as { input: Array<{ name: string }>; output: Array<{ name: string }> }
    expect(f.input.map((x) => x.name)).toContain('chatfold-jsonl')
    expect(f.output.map((x) => x.name)).toContain('anthropic')
    const text = await cli('formats')
    expect(text.out).toMatch(/^input formats \(--from; .*\n {2}\S+ +\S/)
  })

  it('an unknown --from or --to still exits 2 and lists the names', async () => {
    const from = await cli('stats', file, '--from', 'cobol')
    expect(from.code).toBe(EXIT.usage)
    expect(from.err).toContain('unknown input format cobol: one of ')
    const to = await cli('convert', file, '--to', 'cobol')
    expect(to.code).toBe(EXIT.usage)
    expect(to.err).toMatch(/unknown output format cobol: one of .*chatfold-jsonl/)
  })
})
