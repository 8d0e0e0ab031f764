import { describe, expect, it, vi } from 'vitest'
import * as O from 'fp-ts/Option'
import { createBuilder } from '../../src/builder/builder.ts'
import { replayBuilderEvents, replayBuilderInputs } from '../../src/builder/step.ts'
import type { BuilderEvent, BuilderInput } from '../../src/builder/types.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { image, toolCall, toolResult } from '../../src/message/part-make.ts'

const clock = () => {
  let t = Date.UTC(2026, 0, 1)
  return () => new Date(t += 1000).toISOString()
}
const words = (s: string) => s.split(/\s+/).filter((w) => w !== '').length

describe('createBuilder', () => {
  it('starts with the system prompt and its precomputed tokens, and works without a sink', () => {
    const b = createBuilder({ systemPrompt: 'You are terse.', systemTokens: 4 })
    expect(b.len()).toBe(1)
    expect(b.systemPrompt()).toBe('You are terse.')
    expect(b.history()[0]?.tokens).toEqual({ total: 4 })
    b.appendContent('ignored') // a warning nobody listens to
    expect(b.len()).toBe(1)
  })

  it('sends every event to the sink, in order', () => {
    const sink = vi.fn()
    const b = createBuilder({ sink })
    b.startAssistant()
    b.appendContent('a')
    b.finalizeAssistant()
    expect(sink.mock.calls.map((c) => (c[0] as BuilderEvent).type)).toEqual(['messageStarted', 'messagePartAdded', 'messageFinalized'])
  })

  it('a lifecycle method outside the lifecycle is a warning, never a crash', () => {
    const events: BuilderEvent[] = []
    const b = createBuilder({ sink: (e) => events.push(e) })
    b.appendContent('x')
    b.appendThinking('x')
    b.addToolCall({ id: 'c', name: 'n' })
    b.startToolCall('c')
    b.completeToolCall({ id: 'c', result: 'r', error: 'e' })
    b.setError('boom')
    b.finalizeAssistant()
    expect(events.map((e) => e.type)).toEqual(Array(7).fill('warning'))
    expect(b.len()).toBe(0)
  })

  it('estimates tokens for inputs without an estimate, and keeps a positive one', () => {
    const b = createBuilder({ estimate: words })
    b.addUserMessage({ text: 'one two three' })
    b.addUserMessage({ text: 'one two three', estimatedTokens: 42 })
    b.injectMessage({ role: 'user', text: 'a b' })
    b.addToolResult({ toolName: 't', toolCallId: 'x', result: 'r s t u' })
    expect(b.history().map((m) => m.tokens?.total)).toEqual([3, 42, 2, 4])
    expect(b.estimate('a b c d e')).toBe(5)
  })

  it('splits a reported assistant total into content, thinking and the tool remainder', () => {
    const b = createBuilder({ estimate: words })
    b.startAssistant()
    b.appendThinking('let me think')
    b.appendContent('the answer is')
    b.addToolCall({ id: 'c1', name: 'ls', arguments: '{}' })
    b.finalizeAssistant({ tokens: { total: 20 } })
    expect(b.history()[0]?.tokens).toEqual({ total: 20, content: 3, thinking: 3, tools: 14 })
  })

  it('stamps times from the clock and ids from the prefix', () => {
    const b = createBuilder({ clock: clock(), idPrefix: 'x-' })
    expect(b.nextId()).toBe('x-1')
    b.addUserMessage({ text: 'hi' })
    expect(b.history()[0]).toMatchObject({ id: 'x-1', createdAt: '2026-01-01T00:00:02.000Z' })
    expect(b.nextId()).toBe('x-2')
  })

  it('generates ids unique to each builder by default', () => {
    const a = createBuilder()
    const b = createBuilder()
    expect(a.nextId()).not.toBe(b.nextId())
  })

  it('turns are the normal user/assistant text only', () => {
    const b = createBuilder({ systemPrompt: 'sys' })
    b.addUserMessage({ text: 'hi', images: [image({ url: 'https://example.com/a.png' })] })
    b.injectMessage({ role: 'user', text: 'synthetic' })
    b.addDisplayMessage({ role: 'assistant', text: 'display' })
    b.startAssistant()
    b.addToolCall({ id: 'c1', name: 'ls', arguments: '{}' })
    b.finalizeAssistant()
    b.addToolResult({ toolName: 'ls', toolCallId: 'c1', result: 'a b' })
    b.startAssistant()
    b.appendContent('Hello')
    b.finalizeAssistant()
    expect(b.turns()).toEqual([
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'Hello' },
    ])
  })

  it('history() is an immutable snapshot: later calls do not change it', () => {
    const b = createBuilder({ systemPrompt: 'sys' })
    const before = b.history()
    b.addUserMessage({ text: 'hi' })
    b.clear()
    expect(before).toHaveLength(1)
    expect(b.history()).toHaveLength(1)
    expect(b.history()).not.toBe(before)
  })

  it('current() shows the open message', () => {
    const b = createBuilder()
    expect(b.current()).toEqual(O.none)
    b.startAssistant({ id: 'a1' })
    b.appendContent('x')
    expect(O.map((m: { readonly id: string }) => m.id)(b.current())).toEqual(O.some('a1'))
  })

  it('every seed method is there and does its job', () => {
    const b = createBuilder({ systemPrompt: 'sys', clock: clock(), idPrefix: 'm' })
    b.addUserMessage({ text: 'hi' })
    b.addAssistantMessage(makeMessage({ id: 'a0', role: 'assistant', parts: [toolCall({ id: 'k', name: 'x', arguments: '{}', status: 'complete' })] }))
    b.addEphemeralToolResult({ toolName: 'x', toolCallId: 'k', result: 'denied' })
    b.addBookmark('Phase 2')
    b.addMetadata({ mode: 'plan' })
    b.injectMessage({ role: 'user', text: 'Reminder' })
    b.injectMessage({ role: 'user', text: 'Reminder' })
    b.addDisplayMessage({ role: 'assistant', text: 'note' })
    b.startAssistant()
    b.appendThinking('hmm')
    b.appendContent('')
    b.finalizeAssistant()
    b.updateThinking({ index: b.len() - 1, thinking: '' })
    b.trimDuplicateSynthetics()
    expect(b.history().filter((m) => m.kind === 'synthetic')).toHaveLength(1)
    b.ejectSyntheticMessages()
    b.ejectEphemeralMessages()
    b.pruneEmptyAssistantMessages()
    expect(b.history().map((m) => m.kind)).toEqual(['normal', 'normal', 'bookmark', 'metadata', 'display'])
    b.updateSystemPrompt('new sys')
    b.addAssistantMessage(textMessage('system', 'dup') as never) // refused: not an assistant message
    b.restore([textMessage('system', 'a'), textMessage('system', 'b'), textMessage('user', 'q')])
    b.deduplicateSystemMessages()
    expect(b.history().map((m) => m.role)).toEqual(['system', 'user'])
    b.dropN(1)
    expect(b.len()).toBe(1)
    b.addToolResult({ toolName: 'x', toolCallId: 'z', result: 'abc' })
    b.backfillToolTokens(9)
    expect(b.history()[1]?.tokens).toEqual({ total: 9 })
    b.clear()
    expect(b.history().map((m) => m.role)).toEqual(['system'])
  })

  it('the sink may call the builder: its events still arrive in order', () => {
    const seen: string[] = []
    const b = createBuilder({
      sink: (e) => {
        seen.push(e.type)
        if (e.type === 'messageFinalized') b.addUserMessage({ text: 'follow-up' })
      },
    })
    b.startAssistant()
    b.addToolCall({ id: 'c', name: 'ls', arguments: '{}' })
    b.completeToolCall({ id: 'c', result: 'ok' })
    b.finalizeAssistant()
    expect(seen).toEqual(['messageStarted', 'messagePartAdded', 'messagePartUpdated', 'messageFinalized', 'messageAdded', 'messageAdded'])
    expect(b.history().map((m) => m.role)).toEqual(['assistant', 'tool', 'user'])
  })

  it('recorded inputs replay to the same history, and the events rebuild it too', () => {
    const inputs: BuilderInput[] = []
    const events: BuilderEvent[] = []
    const b = createBuilder({ systemPrompt: 'sys', record: (i) => inputs.push(i), sink: (e) => events.push(e) })
    const start = b.state()
    b.addUserMessage({ text: 'read a' })
    b.startAssistant({ model: 'm' })
    b.appendThinking('plan')
    b.setThinkingSignature('sig')
    b.appendContent('Reading')
    b.addToolCall({ id: 'c1', name: 'read' })
    b.appendToolCallArguments({ id: 'c1', fragment: '{"path":"a"}' })
    b.finish('tool_use')
    b.finalizeAssistant({ tokens: { total: 30 } })
    b.startToolCall('c1')
    b.completeToolCall({ id: 'c1', result: 'contents' })
    b.injectMessage({ role: 'user', text: 'be brief' })
    b.updateThinking({ index: 2, thinking: '' })
    b.backfillToolTokens(12)
    b.ejectSyntheticMessages()
    b.updateSystemPrompt('sys 2')
    b.dropN(0)
    const replayed = replayBuilderInputs(inputs)(start)
    expect(replayed.state).toEqual(b.state())
    expect(replayed.events).toEqual(events)
    expect(replayBuilderEvents(events)(start.history)).toEqual(b.history())
  })

  it('rebuildAfterCompaction returns the archive and estimates the summary when given no count', () => {
    const b = createBuilder({ systemPrompt: 'sys', estimate: words })
    b.addUserMessage({ text: 'first' })
    b.addUserMessage({ text: 'second' })
    const keep = b.history().slice(2)
    const archive = b.rebuildAfterCompaction({ summary: 'one two three four', preserved: keep })
    expect(archive.map((m) => m.parts[0])).toEqual([{ type: 'text', text: 'first' }])
    expect(b.history().map((m) => m.role)).toEqual(['system', 'user', 'user'])
    expect(b.history()[1]?.tokens).toEqual({ total: 4 })
  })

  it('pruneToolResults prunes through the history core', () => {
    const b = createBuilder()
    for (let i = 0; i < 3; i++) {
      b.startAssistant()
      b.addToolCall({ id: `c${i}`, name: 'read', arguments: '{}' })
      b.completeToolCall({ id: `c${i}`, result: 'x'.repeat(8000) })
      b.finalizeAssistant()
    }
    b.pruneToolResults({ protectTokens: 2500, minimumSavings: 0 })
    const sizes = b.history().flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_result' ? [p.content.length] : [])))
    expect(sizes[0]).toBeLessThan(8000)
    expect(sizes[2]).toBe(8000)
  })

  it('keeps tool pairing through the streamed lifecycle', () => {
    const b = createBuilder()
    b.startAssistant()
    b.addToolCall({ id: 'a', name: 'x', arguments: '{}' })
    b.addToolCall({ id: 'b', name: 'y', arguments: '{}' })
    b.completeToolCall({ id: 'b', result: 'B' })
    b.completeToolCall({ id: 'a', result: 'A', error: 'warned' })
    b.finalizeAssistant()
    expect(b.history().slice(1).map((m) => m.parts[0])).toEqual([
      toolResult({ toolCallId: 'b', name: 'y', content: 'B' }),
      toolResult({ toolCallId: 'a', name: 'x', content: 'warned\n\nA', isError: true }),
    ])
  })
})
