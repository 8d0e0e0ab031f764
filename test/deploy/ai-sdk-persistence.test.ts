/**
 * UI messages kept by `chatfold serve` over HTTP, with its token: a turn saved before the server is
 * killed with SIGKILL loads back equal from the server started again on the same data directory,
 * with the compaction saved beside it, and the next turn's save adds only its own messages.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { UIMessage } from 'ai'
import { afterAll, describe, expect, it } from 'vitest'
import { sinceCompaction, uiMessageStore } from '../../src/ai-sdk/persistence.ts'
import { rebuildAfterCompaction } from '../../src/compaction/rebuild.ts'
import { isCompactionSummary } from '../../src/message/compaction-mark.ts'
import { servedEnv, startChild, stopChild, TEST_TOKEN } from '../support/served-store.ts'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'chatfold.mjs')
const dirs: string[] = []
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })))
})

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] })
const answer = (id: string, text: string): UIMessage => ({
  id,
  role: 'assistant',
  metadata: { model: 'mock' },
  parts: [
    { type: 'step-start' },
    { type: 'reasoning', text: 'Look it up.', state: 'done' },
    { type: 'tool-weather', toolCallId: `${id}-c`, state: 'output-available', input: { city: 'Paris' }, output: { celsius: 18 } },
    { type: 'step-start' },
    { type: 'text', text, state: 'done' },
  ],
})

describe('UI messages kept by chatfold serve', { timeout: 60_000 }, () => {
  it('survive a SIGKILL of the server between turns', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'chatfold-ui-')), 'chat-data')
    dirs.push(dirname(dir))
    const start = () =>
      startChild(process.execPath, [bin, 'serve', '--data', dir, '--port', '0', '--host', '127.0.0.1'], /listening on (http:\/\/127\.0\.0\.1:\d+)\n/, {
        env: servedEnv(),
      })
    const client = (url: string, token = TEST_TOKEN) => uiMessageStore({ url, token, conversationId: 'support-42' })

    const turn1 = [user('u1', 'Weather in Paris?'), answer('a1', 'It is 18°C in Paris.')]
    const turn2 = [user('u2', 'And tomorrow?'), answer('a2', 'About 20°C.')]
    let served = await start()
    try {
      const url = served.match[1] as string
      await expect(client(url, 'not-the-token').save(turn1)).rejects.toThrow('Cannot load conversation "support-42": the store answered 401')
      const chat = client(url)
      expect(await chat.save(turn1)).toEqual({ added: ['u1', 'a1'], revised: [], unchanged: 0, skipped: 0 })
      const history = await chat.loadHistory()
      const { messages } = rebuildAfterCompaction('## Goal\nThe weather in Paris', 20, history.slice(1))(history)
      const summary = messages.find(isCompactionSummary)
      if (summary === undefined) throw new Error('no summary')
      await chat.saveCompaction(summary)

      await stopChild(served.process, 'SIGKILL')
      served = await start()
      // the two messages; the compaction is an overlay beside them, not a message
      expect(served.output()).toMatch(/recovered 2 messages/)
      const again = client(served.match[1] as string)
      const loaded = await again.load()
      expect(loaded.map((m) => m.id)).toEqual(['u1', summary.id, 'a1'])
      expect(loaded.filter((m) => m.id !== summary.id)).toEqual(turn1)
      expect(sinceCompaction(await again.loadHistory())[0]).toEqual(summary)

      // the next turn as useChat sends it: what it loaded, and the new messages
      expect(await again.save([...loaded, ...turn2])).toEqual({ added: ['u2', 'a2'], revised: [], unchanged: 3, skipped: 0 })
      expect((await again.load()).filter((m) => m.id !== summary.id)).toEqual([...turn1, ...turn2])
    } finally {
      await stopChild(served.process, 'SIGKILL')
    }
  })
})
