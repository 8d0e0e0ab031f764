import { describe, expect, it } from 'vitest'
import { toolResultText } from '../../src/message/tool-result-content.ts'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { reasoning, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { applyContextEdits, CLEARED_RESULT, type ContextEdit, contextManagement } from '../../src/compaction/context-edits.ts'
import { pointersOf } from '../../src/history/pointer.ts'
import { readBack } from '../../src/readback/read-back.ts'
import { contentHash, toPointerRef } from '../../src/readback/pointer-ref.ts'

/** What a result of call `id` (whose original is `original`) becomes when cleared: the placeholder, then its pointer's reference. */
const clearedAs = (id: string, original: string): string =>
  `${CLEARED_RESULT} ref ${toPointerRef({ toolCallId: id, part: 'result', hash: contentHash(original) })}`

// Tokens: one per character of text, result and arguments, so that the figures can be checked by hand.
const count = (m: Message): number =>
  m.parts.reduce(
    (n, p) =>
      n + (p.type === 'text' || p.type === 'reasoning'
        ? p.text.length
        : p.type === 'tool_result'
        ? p.content.length
        : p.type === 'tool_call'
        ? p.arguments.length
        : 0),
    0,
  )

const use = (n: number, name = 'read_file', size = 1_000): Message[] => [
  makeMessage({ id: `a${n}`, role: 'assistant', parts: [toolCall({ id: `c${n}`, name, arguments: `{"path":"f${n}"}`, status: 'complete' })] }),
  makeMessage({ id: `t${n}`, role: 'tool', parts: [toolResult({ toolCallId: `c${n}`, name, content: 'x'.repeat(size) })] }),
]

const resultOf = (ms: ReadonlyArray<Message>, id: string): string | undefined => {
  for (const m of ms) for (const p of m.parts) if (p.type === 'tool_result' && p.toolCallId === id) return toolResultText(p)
  return undefined
}

describe('clear_tool_uses_20250919, as Anthropic documents it', () => {
  const history = [textMessage('user', 'Read every file'), ...[1, 2, 3, 4, 5, 6].flatMap((n) => use(n))]

  it('does nothing under the default trigger of 100,000 input tokens', () => {
    const r = applyContextEdits([{ type: 'clear_tool_uses_20250919' }], { count })(history)
    expect(r.messages).toBe(history)
    expect(r.applied).toEqual([])
  })

  it('past the trigger, clears every result but the 3 most recent by default, oldest first', () => {
    const r = applyContextEdits([{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 5_000 } }], { count })(history)
    expect(['c1', 'c2', 'c3'].map((id) => resultOf(r.messages, id))).toEqual(['c1', 'c2', 'c3'].map((id) => clearedAs(id, 'x'.repeat(1_000))))
    expect(['c4', 'c5', 'c6'].map((id) => resultOf(r.messages, id))).toEqual(['x'.repeat(1_000), 'x'.repeat(1_000), 'x'.repeat(1_000)])
    expect(r.applied).toEqual([{
      type: 'clear_tool_uses_20250919',
      cleared_tool_uses: 3,
      cleared_input_tokens: 3 * (1_000 - clearedAs('c1', 'x'.repeat(1_000)).length),
    }])
    // each cleared result reads back through its pointer, from the history before the clearing
    for (const p of r.messages.flatMap(pointersOf)) expect(readBack(p)(history)).toMatchObject({ right: { text: 'x'.repeat(1_000) } })
    expect(applyContextEdits([{ type: 'clear_tool_uses_20250919', trigger: { type: 'input_tokens', value: 5_000 } }], { count })(r.messages).messages).toEqual(
      r.messages,
    )
    // the calls keep their inputs unless clear_tool_inputs asks otherwise
    expect(r.messages.find((m) => m.id === 'a1')?.parts[0]).toMatchObject({ arguments: '{"path":"f1"}' })
  })

  it('triggers on a number of tool uses, keeps what keep says, and spares exclude_tools', () => {
    const mixed = [textMessage('user', 'Go'), ...use(1), ...use(2, 'web_search'), ...use(3), ...use(4), ...use(5)]
    const edit: ContextEdit = {
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'tool_uses', value: 4 },
      keep: { type: 'tool_uses', value: 2 },
      exclude_tools: ['web_search'],
    }
    const r = applyContextEdits([edit], { count })(mixed)
    expect(['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => resultOf(r.messages, id)?.startsWith(`${CLEARED_RESULT} ref `))).toEqual([
      true,
      false,
      true,
      false,
      false,
    ])
    expect(r.applied[0]).toMatchObject({ cleared_tool_uses: 2 })
    // 4 tool uses do not pass a trigger of 4
    expect(applyContextEdits([edit], { count })(mixed.slice(0, -2)).applied).toEqual([])
  })

  it('clears the inputs too with clear_tool_inputs, of every tool or the named ones', () => {
    const edit = (inputs: boolean | ReadonlyArray<string>): ContextEdit => ({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'tool_uses', value: 1 },
      keep: { type: 'tool_uses', value: 0 },
      clear_tool_inputs: inputs,
    })
    const two = [textMessage('user', 'Go'), ...use(1), ...use(2, 'bash')]
    const all = applyContextEdits([edit(true)], { count })(two).messages
    expect(all.filter((m) => m.role === 'assistant').map((m) => (m.parts[0] as { arguments: string }).arguments)).toEqual(['{}', '{}'])
    const named = applyContextEdits([edit(['bash'])], { count })(two).messages
    expect(named.filter((m) => m.role === 'assistant').map((m) => (m.parts[0] as { arguments: string }).arguments)).toEqual(['{"path":"f1"}', '{}'])
  })

  it('clears nothing when it cannot clear clear_at_least input tokens', () => {
    const edit = (least: number): ContextEdit => ({
      type: 'clear_tool_uses_20250919',
      trigger: { type: 'input_tokens', value: 1_000 },
      clear_at_least: { type: 'input_tokens', value: least },
    })
    expect(applyContextEdits([edit(10_000)], { count })(history).messages).toBe(history)
    expect(applyContextEdits([edit(2_000)], { count })(history).applied).toHaveLength(1)
  })

  it('never edits the caller’s history', () => {
    const before = JSON.stringify(history)
    applyContextEdits([{ type: 'clear_tool_uses_20250919', trigger: { type: 'tool_uses', value: 0 } }], { count })(history)
    expect(JSON.stringify(history)).toBe(before)
  })
})

describe('clear_thinking_20251015, as Anthropic documents it', () => {
  const turn = (n: number): Message[] => [
    textMessage('user', `question ${n}`),
    makeMessage({ id: `a${n}`, role: 'assistant', parts: [reasoning(`thinking ${n}`, { signature: 'sig' }), text(`answer ${n}`)] }),
  ]
  const history = [1, 2, 3].flatMap(turn)
  const thinkingOf = (ms: ReadonlyArray<Message>): string[] => ms.flatMap((m) => m.parts.flatMap((p) => (p.type === 'reasoning' ? [p.text] : [])))

  it('keeps the last turn’s thinking by default', () => {
    const r = applyContextEdits([{ type: 'clear_thinking_20251015' }], { count })(history)
    expect(thinkingOf(r.messages)).toEqual(['thinking 3'])
    expect(r.applied).toEqual([{ type: 'clear_thinking_20251015', cleared_thinking_turns: 2, cleared_input_tokens: 20 }])
  })

  it('keeps the last N turns, or all of them', () => {
    expect(thinkingOf(applyContextEdits([{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 2 } }], { count })(history).messages))
      .toEqual(['thinking 2', 'thinking 3'])
    expect(applyContextEdits([{ type: 'clear_thinking_20251015', keep: 'all' }], { count })(history).messages).toBe(history)
  })
})

describe('contextManagement', () => {
  it('sends the same edits to Anthropic, thinking clearing first, with the beta flag', () => {
    const edits: ReadonlyArray<ContextEdit> = [{ type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 5 } }, {
      type: 'clear_thinking_20251015',
      keep: 'all',
    }]
    expect(contextManagement(edits)).toEqual({
      context_management: {
        edits: [{ type: 'clear_thinking_20251015', keep: 'all' }, { type: 'clear_tool_uses_20250919', keep: { type: 'tool_uses', value: 5 } }],
      },
      betas: ['context-management-2025-06-27'],
    })
  })
})
