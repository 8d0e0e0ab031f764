import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { fromOpencodeExport, type SessionRead } from '../../src/sessions/mod.ts'
import { fromJSONL, toJSONL } from '../../src/history/codec.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { type Message } from '../../src/message/message.ts'

const TEXT = readFileSync(new URL('../fixtures/opencode/ses_3f1a9c0e2ffeQ7mK2vLb8xYz4D.json', import.meta.url), 'utf8')
type Rec = Record<string, unknown>
const source = JSON.parse(TEXT) as { info: Rec; messages: Array<{ info: Rec; parts: Rec[] }>; todos: Rec[] }

const read = (t: string): SessionRead => {
  const r = fromOpencodeExport(t)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}
const viaJSONL = (ms: ReadonlyArray<Message>): ReadonlyArray<Message> => {
  const back = fromJSONL(toJSONL(ms))
  if (E.isLeft(back)) throw new Error(JSON.stringify(back.left))
  return back.right
}

describe('fromOpencodeExport', () => {
  const ms = viaJSONL(read(TEXT).messages)
  const parts = ms.flatMap((m) => m.parts)
  const allParts = source.messages.flatMap((m) => m.parts.map((p) => ({ role: m.info['role'], p })))

  it('keeps every tool call with its input and its output or error (read from the file independently)', () => {
    const tools = allParts.filter((x) => x.p['type'] === 'tool').map((x) => x.p)
    expect(tools).toHaveLength(4)
    for (const t of tools) {
      const state = t['state'] as Rec
      expect(parts.find((p) => p.type === 'tool_call' && p.id === t['callID'])).toMatchObject({
        name: t['tool'],
        arguments: JSON.stringify(state['input']),
        status: state['status'] === 'error' ? 'error' : 'complete',
      })
      expect(parts.find((p) => p.type === 'tool_result' && p.toolCallId === t['callID'])).toMatchObject({
        content: state['status'] === 'error' ? state['error'] : state['output'],
        isError: state['status'] === 'error',
      })
    }
  })

  it('keeps every text and reasoning part, and each step’s usage on its reply with model and provider', () => {
    for (const { role, p } of allParts.filter((x) => x.p['type'] === 'text' || x.p['type'] === 'reasoning')) {
      const found = ms.find((m) => m.parts.some((q) => q.type === (p['type'] === 'text' ? 'text' : 'reasoning') && 'text' in q && q.text === p['text']))
      expect(found, String(p['text'])).toBeDefined()
      if (p['synthetic'] === true) expect(found).toMatchObject({ kind: 'synthetic', metadata: { origin: 'opencode:synthetic' } })
      else expect(found?.role).toBe(role)
    }
    const steps = allParts.filter((x) => x.p['type'] === 'step-finish').map((x) => x.p['tokens'] as Rec & { cache: Rec })
    const usages = ms.filter((m) => m.role === 'assistant').map((m) => m.metadata?.['usage'])
    expect(usages).toEqual(
      steps.map((t) => ({ input: t['input'], output: t['output'], reasoning: t['reasoning'], cacheRead: t.cache['read'], cacheWrite: t.cache['write'] })),
    )
    for (const m of source.messages.filter((x) => x.info['role'] === 'assistant'))
      for (const r of ms.filter((x) => x.role === 'assistant' && x.id.startsWith(m.info['id'] as string)))
        expect(r).toMatchObject({
          model: m.info['modelID'],
          provider: m.info['providerID'],
          createdAt: new Date((m.info['time'] as Rec)['created'] as number).toISOString(),
        })
  })

  it('keeps a reasoning part’s provider signature as its signature', () => {
    expect(parts.find((p) => p.type === 'reasoning' && p.text.startsWith('The user wants'))).toMatchObject({
      signature: 'ErUBCkYIBRgCIkAfakeSignatureForFixtureOnly',
    })
    expect(parts.find((p) => p.type === 'reasoning' && p.text.startsWith('**Updating'))).toMatchObject({ signature: '{"id":"rs_0a1b2c3d4e5f"}' })
  })

  it('reads a data URL file as an image, and keeps a local file, a patch, the session and todos in metadata', () => {
    expect(parts.find((p) => p.type === 'image')).toMatchObject({ mediaType: 'image/png' })
    const meta = JSON.stringify(ms.map((m) => m.metadata))
    expect(meta).toContain('file:///home/dev/atlas/src/pages/profile.ts')
    expect(meta).toContain('9e3c1d2b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d')
    expect(ms[0]).toMatchObject({ kind: 'metadata', metadata: { opencode: { session: { id: source.info['id'] }, todos: source.todos } } })
  })

  it('turns a summary reply into a compaction summary, archiving the history before it', () => {
    const doc = JSON.parse(TEXT) as typeof source
    const at = { created: 1775900100000 }
    doc.messages.push(
      { info: { id: 'msg_z1', sessionID: 'ses', role: 'user', time: at }, parts: [{ id: 'p1', type: 'compaction', auto: true }] },
      {
        info: {
          id: 'msg_z2',
          sessionID: 'ses',
          role: 'assistant',
          time: at,
          modelID: 'm',
          providerID: 'p',
          summary: true,
          tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } },
        },
        parts: [{ id: 'p2', type: 'text', text: 'We renamed fetchUser.' }],
      },
    )
    const r = read(JSON.stringify(doc))
    const summary = r.messages.filter(isCompactionSummary)
    expect(summary.map((m) => m.parts[0])).toEqual([{ type: 'text', text: 'We renamed fetchUser.' }])
    expect(r.archive.some((m) => m.parts.some((p) => p.type === 'tool_call' && p.id === 'toolu_01Hq8sKx2Vb7Nm4Pd9Lr3Tz'))).toBe(true)
  })

  it('names the bad field of a file that is not an export', () => {
    const doc = JSON.parse(TEXT) as typeof source
    ;(doc.messages[1]?.parts[3]?.['state'] as Rec)['status'] = 7
    const r = fromOpencodeExport(JSON.stringify(doc))
    expect(E.isLeft(r) && r.left[0]).toMatchObject({ path: 'messages[1].parts[3].state.status', expected: 'string' })
  })
})
