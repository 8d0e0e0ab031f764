/**
 * The framework integrations over HTTP to `chatfold serve`'s library function (file backend, a
 * bearer token), killed with SIGKILL between turns: an Agents SDK run and a Claude Agent SDK
 * transcript go on where they were.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { Agent, run } from '@openai/agents'
import { assistantMessage, ScriptedModel } from '@openai/agents/testing'
import { chatStoreSession, httpChatLog } from '../../src/openai-agents/mod.ts'
import { chatStoreSessionStore } from '../../src/claude-agent-sdk/mod.ts'
import { type Child, servedEnv, startChild, stopChild, TEST_TOKEN } from '../support/served-store.ts'

const script = join(dirname(fileURLToPath(import.meta.url)), 'support', 'serve-store.ts')
let dir = ''
let child: (Child & { match: RegExpExecArray }) | undefined
afterAll(async () => {
  if (child !== undefined) await stopChild(child.process, 'SIGKILL')
  if (dir !== '') await rm(dir, { recursive: true, force: true })
})

const start = async () => {
  child = await startChild(process.execPath, ['--import', 'tsx', script, dir, '1000'], /listening on (http:\/\/127\.0\.0\.1:\d+)/, { env: servedEnv() })
  return httpChatLog({ url: child.match[1] as string, token: TEST_TOKEN })
}
const kill = async () => {
  if (child !== undefined) await stopChild(child.process, 'SIGKILL')
  child = undefined
}

describe('the integrations on a served store killed between turns', { timeout: 60_000 }, () => {
  it('keep an agent session and a transcript through a SIGKILL', async () => {
    dir = await mkdtemp(join(tmpdir(), 'chatfold-integrations-'))
    const model = new ScriptedModel([[assistantMessage('Paris.')], [assistantMessage('About 2.1 million.')]])
    const agent = new Agent({ name: 'geo', instructions: 'Answer briefly.', model })
    const key = { projectKey: 'app', sessionId: 's-1' }
    const entries = [
      { type: 'user', uuid: 'u1', message: { role: 'user', content: 'Hi' } },
      { type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] } },
    ]

    let log = await start()
    await run(agent, 'Capital of France?', { session: chatStoreSession({ log, sessionId: 'geo-1' }) })
    await chatStoreSessionStore(log).append(key, entries)
    await kill()

    log = await start()
    const second = await run(agent, 'Its population?', { session: chatStoreSession({ log, sessionId: 'geo-1' }) })
    expect(second.finalOutput).toBe('About 2.1 million.')
    expect(JSON.stringify(model.lastCall?.request.input)).toContain('Paris.')
    expect(await chatStoreSession({ log, sessionId: 'geo-1' }).getItems()).toHaveLength(4)
    const sessions = chatStoreSessionStore(log)
    await sessions.append(key, [entries[1] as (typeof entries)[number]]) // a retried batch after the restart adds nothing
    expect(await sessions.load(key)).toEqual(entries)
  })

  it('commit an agent session’s compaction as the store’s overlay, an append made meanwhile kept, through a SIGKILL', async () => {
    const user = (content: string) => ({ role: 'user' as const, content })
    await kill()
    let log = await start()
    const other = chatStoreSession({ log, sessionId: 'long' })
    let summaries = 0
    const session = chatStoreSession({
      log,
      sessionId: 'long',
      compaction: {
        contextWindow: 2_000,
        keepRecentTokens: 200,
        summarize: async () => {
          if (++summaries === 1) await other.addItems([user('written meanwhile')])
          return `summary ${summaries}`
        },
      },
    })
    await session.addItems(Array.from({ length: 12 }, (_, i) => user(`${'a long question '.repeat(60)}#${i}`)))
    expect(await session.compact()).toMatchObject({ compacted: true })
    await kill()
    log = await start()
    const items = await chatStoreSession({ log, sessionId: 'long' }).getItems()
    expect(JSON.stringify(items[0])).toContain('summary 2')
    expect(items.at(-1)).toEqual(user('written meanwhile'))
    expect(items.length).toBeLessThan(13)
  })
})
