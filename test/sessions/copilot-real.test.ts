import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromCopilotChatSession } from '../../src/sessions/copilot.ts'
import { isPiSessionLine } from '../../src/sessions/pi.ts'
import { EXIT, run } from '../../src/cli/main.ts'

/** Sessions GitHub Copilot Chat wrote in VS Code (sources in test/fixtures/copilot/SOURCES.md). */
const file = (name: string): string => new URL(`../fixtures/copilot/${name}`, import.meta.url).pathname
// deno-lint-ignore no-explicit-any -- the fixture is read as plain JSON, apart from the reader
type Rec = Record<string, any>

/** The session document of a `.json` file, or of a `.jsonl` journal replayed here (snapshot, sets, appends). */
const sessionOf = (name: string): Rec => {
  const text = readFileSync(file(name), 'utf8')
  if (name.endsWith('.json')) return JSON.parse(text) as Rec
  let doc: Rec = {}
  for (const line of text.split('\n').filter((l) => l.trim() !== '')) {
    const op = JSON.parse(line) as Rec
    if (op['kind'] === 0) {
      doc = op['v']
      continue
    }
    const keys = op['k'] as Array<string | number>
    const parent = keys.slice(0, -1).reduce((o: Rec, k) => (o[k] ??= {}), doc)
    const last = keys[keys.length - 1] as string | number
    parent[last] = op['kind'] === 1 ? op['v'] : [...(parent[last] ?? []), ...op['v']]
  }
  return doc
}

/** The text a tool result's rendered prompt tree holds: its text pieces in order, a piece marked so on a new line. */
const treeText = (node: Rec): string => {
  let out = ''
  const walk = (n: Rec): void => {
    if (typeof n['text'] === 'string') {
      if (n['lineBreakBefore'] === true && out !== '' && !out.endsWith('\n')) out += '\n'
      out += n['text']
    }
    for (const c of n['children'] ?? []) walk(c)
  }
  walk(node)
  return out
}

const resultText = (r: Rec): string =>
  (r['content'] as Rec[]).map((c) => (typeof c['value'] === 'string' ? c['value'] : treeText(c['value']['node']))).join('\n')

describe.each(['git-ai-session-simple.json', 'git-ai-session-simple.jsonl', 'git-ai-session-multiline.jsonl'])('a real Copilot chat session (%s)', (name) => {
  const doc = sessionOf(name)
  const r = fromCopilotChatSession(readFileSync(file(name), 'utf8'))
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  const parts = r.right.messages.flatMap((m) => m.parts)

  it('keeps every request, every round of the reply, every tool call and its result as text', () => {
    const requests = doc['requests'] as Rec[]
    expect(requests.length).toBeGreaterThan(1)
    expect(r.right.messages.filter((m) => m.role === 'user').map((m) => m.parts)).toEqual(
      requests.map((q) => [{ type: 'text', text: q['message']['text'] }]),
    )
    let calls = 0
    for (const q of requests) {
      const meta = q['result']['metadata']
      for (const round of meta['toolCallRounds']) {
        if (round['response'] !== '') expect(parts).toContainEqual({ type: 'text', text: round['response'] })
        for (const c of round['toolCalls']) {
          calls++
          expect(parts).toContainEqual({ type: 'tool_call', id: c['id'], name: c['name'], arguments: c['arguments'], status: 'complete' })
          const result = resultText(meta['toolCallResults'][c['id']])
          expect(result).not.toBe('')
          expect(parts).toContainEqual({ type: 'tool_result', toolCallId: c['id'], name: c['name'], content: result, isError: false })
        }
      }
    }
    expect(calls).toBeGreaterThan(1)
  })

  it('holds no reasoning, and names every response item it does not send', () => {
    const items = (doc['requests'] as Rec[]).flatMap((q) => q['response'] as Rec[])
    expect(items.filter((x) => x['kind'] === 'thinking')).toEqual([])
    expect(parts.filter((p) => p.type === 'reasoning')).toEqual([])
    const kinds = new Set(items.flatMap((x) => (x['kind'] === undefined || x['kind'] === null ? [] : [String(x['kind'])])))
    expect(kinds.size).toBeGreaterThan(0)
    for (const k of kinds) expect(r.right.notes.join('\n')).toContain(` ${k}`)
  })
})

describe('the real session and its journal', () => {
  it('read as the same history', () => {
    const a = fromCopilotChatSession(readFileSync(file('git-ai-session-simple.json'), 'utf8'))
    const b = fromCopilotChatSession(readFileSync(file('git-ai-session-simple.jsonl'), 'utf8'))
    expect(E.isRight(b) && b.right.messages).toEqual(E.isRight(a) && a.right.messages)
  })
})

describe('the event stream Copilot Chat writes beside its sessions (transcripts/<id>.jsonl)', () => {
  const name = 'git-ai-vscode-event-stream.jsonl'
  const first = JSON.parse(readFileSync(file(name), 'utf8').split('\n')[0] as string) as Rec

  it('is not taken for a pi session, whose entries it resembles (type, id, parentId, timestamp)', () => {
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['type', 'id', 'parentId', 'timestamp']))
    expect(isPiSessionLine(first)).toBe(false)
  })

  it('is read as the event stream it is rather than as a session with no messages (the reader: copilot-events.test.ts)', async () => {
    let out = ''
    const code = await run(['stats', file(name), '--json'], { out: (s) => void (out += s), err: () => {}, errIsTTY: false })
    expect(code).toBe(EXIT.ok)
    expect(JSON.parse(out)).toMatchObject({ format: 'copilot-events' })
  })
})
