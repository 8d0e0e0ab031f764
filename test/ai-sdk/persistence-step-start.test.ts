/**
 * `uiMessageStore` gives an assistant message back as it was saved: with its leading `step-start`
 * part when it had one, without one when it had none (it added one it never had).
 */
import { describe, expect, it } from 'vitest'
import type { UIMessage } from 'ai'
import { createChatStore } from '../../src/store/store.ts'
import { uiMessageStore } from '../../src/ai-sdk/persistence.ts'

describe('uiMessageStore and step-start parts', () => {
  it('loads each assistant message with the parts it was saved with', async () => {
    const chat = uiMessageStore({ store: createChatStore({ maxHistorySize: Infinity }), conversationId: 'c' })
    const messages: UIMessage[] = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hello!', state: 'done' }] },
      { id: 'u2', role: 'user', parts: [{ type: 'text', text: 'And?' }] },
      { id: 'a2', role: 'assistant', parts: [{ type: 'step-start' }, { type: 'text', text: 'More.', state: 'done' }] },
    ]
    await chat.save(messages)
    expect(await chat.load()).toEqual(messages)
    // saved again as loaded: nothing changes
    expect(await chat.save(await chat.load())).toMatchObject({ added: [], revised: [], unchanged: 4 })
  })
})
