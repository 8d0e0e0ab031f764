/**
 * Reading pruned tool outputs back from the chat store's file backend (what `chatfold serve
 * --data` keeps): a chat message's content has no form for a tool call or result, so the store
 * holds them where the integrations put them, as they came, in a message's metadata (the Agents
 * SDK's items, the Claude Agent SDK's transcript entries); after the store is reopened from its
 * folder, every pruned output reads back through its pointer from the history they give.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import type { AgentInputItem } from '@openai/agents'
import { openDurableStore } from '../../src/store/durable.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { chatStoreSessionStore, storeChatLog } from '../../src/claude-agent-sdk/mod.ts'
import { chatStoreSession } from '../../src/openai-agents/mod.ts'
import { pruneToolResults } from '../../src/history/prune.ts'
import { pointersOf } from '../../src/history/pointer.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import { formatReadBackFailure, readBack } from '../../src/readback/read-back.ts'
import { toChatContentNoted } from '../../src/store/content.ts'
import { makeMessage } from '../../src/message/message.ts'
import { text, toolCall, toolResult } from '../../src/message/part-make.ts'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

const open = async (dir: string) => openDurableStore(fileStorage(dir))({ maxHistorySize: Infinity })

/** A tool's output of `n` characters of every UTF-8 width. */
const output = (i: number, n: number): string => {
  const words = ['cart', 'total', 'é', '合計', '🛒', 'Error: ENOENT', '\n']
  let s = `read ${i}: `
  for (let k = 0; s.length < n; k++) s += words[(k * 7 + i) % words.length] + ' '
  return s
}

describe('read-back from the chat store on its file backend', () => {
  it('reads every pruned output of an Agents SDK session back byte for byte after the store is reopened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-read-back-store-'))
    dirs.push(dir)
    const originals = new Map<string, string>()
    const items: AgentInputItem[] = []
    for (let i = 0; i < 30; i++) {
      const out = output(i, 500 + i * 97)
      originals.set(`c${i}`, out)
      items.push(
        { role: 'user', content: `step ${i}` },
        { type: 'function_call', callId: `c${i}`, name: 'read', arguments: `{"path":"f${i}.ts"}`, status: 'completed' },
        { type: 'function_call_result', callId: `c${i}`, name: 'read', status: 'completed', output: { type: 'text', text: out } },
      )
    }
    const a = await open(dir)
    await chatStoreSession({ log: storeChatLog(a), sessionId: 'agents-1' }).addItems(items)
    await a.close()

    const b = await open(dir)
    const history = await chatStoreSession({ log: storeChatLog(b), sessionId: 'agents-1' }).history()
    await b.close()
    const pointers = pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(history).flatMap(pointersOf).filter((p) => p.part === 'result')
    expect(pointers.map((p) => p.toolCallId).sort()).toEqual([...originals.keys()].sort())
    for (const p of pointers) {
      const page = readBack(toPointerRef(p), { maxBytes: 1_000_000 })(history)
      if (E.isLeft(page)) throw new Error(formatReadBackFailure(page.left))
      expect(page.right.text).toBe(originals.get(p.toolCallId))
    }
  })

  it('reads a pruned tool result of a Claude Agent SDK transcript back after the store is reopened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-read-back-store-'))
    dirs.push(dir)
    const key = { projectKey: 'app', sessionId: 's-1' }
    const out = output(7, 3_000)
    const at = (n: number) => `2026-01-01T00:00:0${n}.000Z`
    const entries = [
      { type: 'user', uuid: 'u1', timestamp: at(1), message: { role: 'user', content: 'Read the cart.' } },
      {
        type: 'assistant',
        uuid: 'a1',
        parentUuid: 'u1',
        timestamp: at(2),
        message: {
          id: 'msg_1',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'cart.ts' } }],
        },
      },
      {
        type: 'user',
        uuid: 'u2',
        parentUuid: 'a1',
        timestamp: at(3),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: out }] },
      },
    ]
    const a = await open(dir)
    await chatStoreSessionStore(storeChatLog(a)).append(key, entries)
    await a.close()

    const b = await open(dir)
    const session = await chatStoreSessionStore(storeChatLog(b)).history(key)
    await b.close()
    expect(session).toBeDefined()
    const history = session?.messages ?? []
    const [pointer] = pruneToolResults({ protectTokens: 0, minimumSavings: 0 })(history).flatMap(pointersOf).filter((p) => p.part === 'result')
    expect(pointer?.toolCallId).toBe('toolu_1')
    const page = readBack(pointer!, { maxBytes: 1_000_000 })(history)
    expect(E.isRight(page) && page.right.text).toBe(out)
  })

  it("names what a chat message's own content cannot hold, rather than leaving it out silently", () => {
    const m = makeMessage({ id: 'a1', role: 'assistant', parts: [text('Reading.'), toolCall({ id: 'c1', name: 'read', arguments: '{}' })] })
    const t = makeMessage({ id: 't1', role: 'tool', parts: [toolResult({ toolCallId: 'c1', content: 'the file' })] })
    expect(toChatContentNoted(m.parts)).toEqual({
      content: [{ type: 'text', text: 'Reading.' }],
      left: [{ index: 1, type: 'tool_call', toolCallId: 'c1' }],
    })
    expect(toChatContentNoted(t.parts)).toEqual({ content: [], left: [{ index: 0, type: 'tool_result', toolCallId: 'c1' }] })
  })
})
