import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parsePartialJSON } from '../../src/builder/partial-json.ts'
import { makeBuilderState } from '../../src/builder/state.ts'
import { replayBuilderEvents, step } from '../../src/builder/step.ts'
import { type BuilderEvent, type BuilderInput, type BuilderState } from '../../src/builder/types.ts'
import { isToolCall, isToolResult } from '../../src/message/part-make.ts'
import { type Message, textMessage } from '../../src/message/message.ts'
import { deepFreeze } from '../support/arbitraries.ts'

// --- partial JSON ---

/** Prefixes of `s`: every one of a short text, about 80 spread over a long one. */
const prefixes = (s: string): string[] => {
  const stride = Math.max(1, Math.floor(s.length / 80))
  const out: string[] = []
  for (let i = 1; i <= s.length; i += stride) out.push(s.slice(0, i))
  return out
}
const keysOf = (u: unknown): string[] => (typeof u === 'object' && u !== null && !Array.isArray(u) ? Object.keys(u) : [])

describe('parsePartialJSON properties', () => {
  it('parses complete JSON exactly as JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(undefined, 1, 2), (v, space) => {
        const s = JSON.stringify(v, null, space)
        expect(parsePartialJSON(s)).toEqual(JSON.parse(s))
      }),
      { numRuns: 200 },
    )
  })

  it('never throws on a prefix, keeps the container kind, and only ever shows keys the whole text has', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 })),
        (v) => {
          const s = JSON.stringify(v)
          const whole = JSON.parse(s) as unknown
          const wholeKeys = new Set(keysOf(whole))
          let seen = 0
          for (const p of prefixes(s)) {
            const r = parsePartialJSON(p)
            const keys = keysOf(r)
            const ok = Array.isArray(r) === Array.isArray(whole) &&
              (!Array.isArray(r) || r.length <= (whole as unknown[]).length) &&
              keys.every((k) => wholeKeys.has(k)) &&
              keys.length >= seen
            if (!ok) expect({ prefix: p, parsed: r }).toBe('a prefix-consistent value')
            seen = keys.length
          }
        },
      ),
      { numRuns: 150 },
    )
  })

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ':', ',', 'a', '1', '-', '.', 'e', 't', 'n', ' ') }), (s) => {
        expect(() => parsePartialJSON(s)).not.toThrow()
      }),
      { numRuns: 200 },
    )
  })
})

// --- the reducer ---

const idArb = fc.constantFrom('c1', 'c2')
const chunkArb = fc.constantFrom('', 'a', 'bc', ' ', '{"x":', '1}')

const inputArb: fc.Arbitrary<BuilderInput> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<BuilderInput>({ type: 'startAssistant' }) },
  { weight: 4, arbitrary: chunkArb.map((text): BuilderInput => ({ type: 'appendContent', text })) },
  { weight: 3, arbitrary: chunkArb.map((text): BuilderInput => ({ type: 'appendThinking', text })) },
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'setThinkingSignature', signature: 'sig' }) },
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'addRedactedThinking', data: 'enc' }) },
  { weight: 4, arbitrary: idArb.map((id): BuilderInput => ({ type: 'addToolCall', id, name: `t_${id}` })) },
  { weight: 3, arbitrary: fc.tuple(idArb, chunkArb).map(([id, fragment]): BuilderInput => ({ type: 'appendToolCallArguments', id, fragment })) },
  { weight: 2, arbitrary: idArb.map((id): BuilderInput => ({ type: 'startToolCall', id })) },
  {
    weight: 3,
    arbitrary: fc.tuple(idArb, fc.option(fc.constant('failed'), { nil: undefined })).map(([id, error]): BuilderInput => ({
      type: 'completeToolCall',
      id,
      result: 'out',
      ...(error === undefined ? {} : { error }),
    })),
  },
  { weight: 1, arbitrary: fc.constantFrom('end_turn', 'tool_use').map((reason): BuilderInput => ({ type: 'finish', reason })) },
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'setError', error: 'e' }) },
  { weight: 3, arbitrary: fc.constant<BuilderInput>({ type: 'finalizeAssistant' }) },
  { weight: 2, arbitrary: fc.constant<BuilderInput>({ type: 'addUserMessage', text: 'u' }) },
  {
    weight: 3,
    arbitrary: fc.tuple(idArb, fc.boolean()).map(([toolCallId, eph]): BuilderInput => ({
      type: eph ? 'addEphemeralToolResult' : 'addToolResult',
      toolName: 't',
      toolCallId,
      result: 'r',
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<BuilderInput>({ type: 'addBookmark', label: 'b' }, { type: 'addMetadata', data: { k: 1 } }, {
      type: 'addDisplayMessage',
      role: 'assistant',
      text: 'd',
    }),
  },
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'injectMessage', role: 'user', text: 'remember' }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: -1, max: 8 }), fc.constantFrom('', 'new')).map(([index, thinking]): BuilderInput => ({
      type: 'updateThinking',
      index,
      thinking,
    })),
  },
  { weight: 1, arbitrary: fc.constantFrom('sys', 'other').map((prompt): BuilderInput => ({ type: 'updateSystemPrompt', prompt })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<BuilderInput>(
      { type: 'clear' },
      { type: 'dropN', n: 1 },
      { type: 'dropN', n: 3 },
      { type: 'backfillToolTokens', delta: 10 },
      { type: 'deduplicateSystemMessages' },
      { type: 'ejectEphemeralMessages' },
      { type: 'ejectSyntheticMessages' },
      { type: 'trimDuplicateSynthetics' },
      { type: 'pruneEmptyAssistantMessages' },
      { type: 'restore', messages: deepFreeze([textMessage('system', 'restored', { id: 'r0' })]) },
      { type: 'rebuildAfterCompaction', summary: '## Goal', summaryTokens: 3, preserved: [] },
    ),
  },
)

/** Only the inputs that move tool calls and results, so their interleavings come up often. */
const toolInputArb: fc.Arbitrary<BuilderInput> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'startAssistant' }) },
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'finalizeAssistant' }) },
  { weight: 2, arbitrary: idArb.map((id): BuilderInput => ({ type: 'addToolCall', id, name: `t_${id}`, arguments: '{}' })) },
  { weight: 1, arbitrary: idArb.map((id): BuilderInput => ({ type: 'startToolCall', id })) },
  { weight: 2, arbitrary: idArb.map((id): BuilderInput => ({ type: 'completeToolCall', id, result: 'out' })) },
  {
    weight: 2,
    arbitrary: fc.tuple(idArb, fc.boolean()).map(([toolCallId, eph]): BuilderInput => ({
      type: eph ? 'addEphemeralToolResult' : 'addToolResult',
      toolName: 't',
      toolCallId,
      result: 'r',
    })),
  },
  { weight: 1, arbitrary: fc.constant<BuilderInput>({ type: 'addUserMessage', text: 'u' }) },
)
const toolRunArb = fc.array(toolInputArb, { minLength: 6, maxLength: 24 })
const runArb = fc.oneof(fc.array(inputArb, { minLength: 4, maxLength: 40 }), toolRunArb)

const fold = (inputs: ReadonlyArray<BuilderInput>) => {
  let state: BuilderState = deepFreeze(makeBuilderState({ systemPrompt: 'sys' }))
  const start = state
  const events: BuilderEvent[] = []
  for (const input of inputs) {
    const before = state
    const r = step(before, deepFreeze(input))
    // a warning never changes the state, and a step without events leaves the history as it was
    // (it may change what is not committed yet: the open message, a queued result)
    if (r.events.some((e) => e.type === 'warning') && input.type !== 'startAssistant' && input.type !== 'restore') expect(r.state).toBe(before)
    if (r.events.length === 0) expect(r.state.history).toBe(before.history)
    state = deepFreeze(r.state) // a step that mutated its input would throw on the next one
    events.push(...r.events)
  }
  return { start, state, events }
}

describe('step properties', () => {
  it('never throws, never mutates, a warning changes nothing, and every history change is reported', () => {
    fc.assert(
      fc.property(runArb, (inputs) => {
        fold(inputs)
      }),
      { numRuns: 200 },
    )
  })

  it('is deterministic: replaying the inputs gives the same state and events', () => {
    fc.assert(
      fc.property(runArb, (inputs) => {
        const a = fold(inputs)
        const b = fold(inputs)
        expect(b.state).toEqual(a.state)
        expect(b.events).toEqual(a.events)
      }),
      { numRuns: 100 },
    )
  })

  it('the events alone rebuild the history', () => {
    fc.assert(
      fc.property(runArb, (inputs) => {
        const { start, state, events } = fold(inputs)
        expect(replayBuilderEvents(events)(start.history)).toEqual(state.history)
      }),
      { numRuns: 200 },
    )
  })

  it('records at most one result per tool call (ids may be reused by later turns)', () => {
    fc.assert(
      fc.property(runArb, (inputs) => {
        const { state } = fold(inputs)
        const h = state.history
        const holds = (m: Message, id: string) => m.role === 'assistant' && m.parts.some((p) => isToolCall(p) && p.id === id)
        h.forEach((m, i) => {
          if (m.role !== 'assistant') return
          for (const call of m.parts.filter(isToolCall)) {
            let results = 0
            for (let j = i + 1; j < h.length && !holds(h[j] as Message, call.id); j++) {
              results += (h[j] as Message).parts.filter((p) => isToolResult(p) && p.toolCallId === call.id).length
            }
            expect(results).toBeLessThanOrEqual(1)
          }
        })
        const queued = state.results.flatMap((m) => m.parts.filter(isToolResult).map((p) => p.toolCallId))
        expect(new Set(queued).size).toBe(queued.length)
      }),
      { numRuns: 200 },
    )
  })

  it('generated ids are unique', () => {
    fc.assert(
      fc.property(runArb, (inputs) => {
        const { state } = fold(inputs)
        const ids = [...state.history, ...state.results, ...(state.current === undefined ? [] : [state.current])].map((m) => m.id)
        expect(new Set(ids).size).toBe(ids.length)
      }),
      { numRuns: 200 },
    )
  })
})
