/**
 * Both integrations on the store's file backend: what one opening of the store took is there,
 * deep-equal, when the store is opened again from the same folder.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentInputItem } from '@openai/agents'
import { openDurableStore } from '../../src/store/durable.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { chatStoreSessionStore, storeChatLog } from '../../src/claude-agent-sdk/mod.ts'
import { chatStoreSession } from '../../src/openai-agents/mod.ts'

const dirs: string[] = []
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
})

const open = async (dir: string) => openDurableStore(fileStorage(dir))({ maxHistorySize: Infinity })

describe('the integrations on the file backend', () => {
  it('find their transcripts and sessions again after the store is reopened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chatfold-integrations-'))
    dirs.push(dir)
    const key = { projectKey: 'app', sessionId: 's-1' }
    const entries = [
      { type: 'user', uuid: 'u1', message: { role: 'user', content: 'Hi' } },
      { type: 'custom-title', customTitle: 'greeting' },
    ]
    const items: AgentInputItem[] = [{ role: 'user', content: 'Hi' }, { type: 'function_call', callId: 'c1', name: 'f', arguments: '{}' }]
    const a = await open(dir)
    await chatStoreSessionStore(storeChatLog(a)).append(key, entries)
    const session = chatStoreSession({ log: storeChatLog(a), sessionId: 'agents-1' })
    await session.addItems(items)
    await session.popItem()
    await a.close()

    const b = await open(dir)
    expect(await chatStoreSessionStore(storeChatLog(b)).load(key)).toEqual(entries)
    expect(await chatStoreSession({ log: storeChatLog(b), sessionId: 'agents-1' }).getItems()).toEqual(items.slice(0, 1))
    await b.close()
  })
})
