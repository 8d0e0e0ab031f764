/** Shared builders for the store tests. */
import * as E from 'fp-ts/Either'
import type { ChatContent } from '../../src/store/content.ts'
import type { ChatInput, ChatRole } from '../../src/store/input.ts'
import { applyInput, type ChatState } from '../../src/store/state.ts'
import { deepFreeze } from '../support/arbitraries.ts'

/** A frozen chat input at minute `minute` of 2024-03-15 10:00 UTC. */
export const chat = (
  inputId: string,
  role: ChatRole,
  content: ChatContent,
  minute: number,
  extra: Partial<Pick<ChatInput, 'message_id' | 'conversation_id' | 'metadata'>> = {},
): ChatInput =>
  deepFreeze({
    modality_type: 'chat',
    timestamp: new Date(Date.UTC(2024, 2, 15, 10, minute)).toISOString(),
    input_id: inputId,
    role,
    content,
    ...extra,
  })

/** Applies inputs in turn, failing the test on the first refusal. */
export const applyAll = (state: ChatState, inputs: ReadonlyArray<ChatInput>): ChatState =>
  inputs.reduce((s, i) => {
    const r = applyInput(i)(s)
    if (E.isLeft(r)) throw new Error(`refused ${i.input_id}: ${JSON.stringify(r.left)}`)
    return r.right
  }, state)
