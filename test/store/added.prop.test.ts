import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { applyInput, conversationIds, emptyState } from '../../src/store/state.ts'
import { forkConversation } from '../../src/store/fork.ts'
import { makeChatInput } from '../../src/store/input.ts'
import { getConversation } from '../../src/store/query.ts'
import { toChatMessages } from '../../src/store/snapshot.ts'
import { addedMessages } from '../../src/store/added.ts'
import type { ChatState } from '../../src/store/core.ts'

type Step =
  | { readonly op: 'submit'; readonly conversation: string; readonly id: string; readonly minute: number }
  | { readonly op: 'fork'; readonly from: string; readonly to: string }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      op: fc.constant('submit' as const),
      conversation: fc.constantFrom('a', 'b', 'c', 'd'),
      id: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'),
      minute: fc.integer({ min: 0, max: 59 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('fork' as const), from: fc.constantFrom('a', 'b'), to: fc.constantFrom('e', 'f') }) },
)

const apply = (state: ChatState, step: Step): ChatState => {
  if (step.op === 'submit') {
    const input = makeChatInput({
      role: 'user',
      content: step.id,
      conversation_id: step.conversation,
      message_id: step.id,
      timestamp: `2024-03-15T10:${String(step.minute).padStart(2, '0')}:00Z`,
    })
    return E.getOrElse(() => state)(applyInput(input)(state))
  }
  const at = toChatMessages(state)(getConversation(step.from)(state))[0]
  if (at === undefined) return state
  return E.getOrElse(() => state)(forkConversation({ conversation_id: step.from, message_id: at.message_id, new_conversation_id: step.to })(state))
}

/** What `after` holds that `before` did not, by conversation, read the long way: every conversation, every message. */
const expected = (before: ChatState, after: ChatState) =>
  conversationIds(after).flatMap((id) => {
    const was = new Set(toChatMessages(before)(getConversation(id)(before)).map((m) => m.message_id))
    const messages = toChatMessages(after)(getConversation(id)(after)).filter((m) => !was.has(m.message_id))
    return messages.length === 0 ? [] : [{ conversationId: id, fresh: !conversationIds(before).includes(id), messages }]
  })

describe('the messages steps added between two states', () => {
  it('are what a full comparison finds, whatever the steps, their time order and the history limit', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), fc.integer({ min: 0, max: 29 }), fc.constantFrom(3, 1000), (steps, cut, limit) => {
        const start = steps.slice(0, cut).reduce(apply, emptyState({ maxHistorySize: limit }))
        const end = steps.slice(cut).reduce(apply, start)
        expect(addedMessages(start, end)).toEqual(expected(start, end))
        expect(addedMessages(end, end)).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})
