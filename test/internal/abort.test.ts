/**
 * Stopping on an AbortSignal: the signal's reason wins, and without one each caller's own message.
 */
import { describe, expect, it } from 'vitest'
import { abortReason, throwIfAborted } from '../../src/internal/abort.ts'
import { createChat } from '../../src/builder/chat.ts'
import { compact } from '../../src/compaction/compact.ts'

/** A signal aborted without a reason, as an older runtime leaves it (current ones fill one in). */
const reasonless = (): AbortSignal => {
  const c = new AbortController()
  c.abort()
  Object.defineProperty(c.signal, 'reason', { value: undefined })
  return c.signal
}

describe('throwIfAborted', () => {
  it('throws the reason of an aborted signal, and nothing otherwise', () => {
    const c = new AbortController()
    expect(() => throwIfAborted(c.signal)).not.toThrow()
    expect(() => throwIfAborted(undefined)).not.toThrow()
    c.abort(new Error('stop'))
    expect(() => throwIfAborted(c.signal)).toThrow('stop')
  })
})

describe('abortReason', () => {
  it("is the signal's reason when it has one", () => {
    const c = new AbortController()
    const reason = new Error('stop')
    c.abort(reason)
    expect(abortReason(c.signal, 'The wait was aborted')).toBe(reason)
  })

  it("is an AbortError with the caller's message, or a generic one, when the signal has no reason", () => {
    const signal = reasonless()
    expect(abortReason(signal)).toMatchObject({ name: 'AbortError', message: 'The operation was aborted' })
    expect(abortReason(signal, 'The compaction was aborted')).toMatchObject({ name: 'AbortError', message: 'The compaction was aborted' })
    expect(() => throwIfAborted(signal, 'The compaction was aborted')).toThrow('The compaction was aborted')
  })

  it('keeps the messages a chat wait and a compaction reject with', async () => {
    await expect(createChat().wait(1, { signal: reasonless() })).rejects.toMatchObject({ name: 'AbortError', message: 'The wait was aborted' })
    await expect(compact({ summarize: async () => '', signal: reasonless() })([])).rejects.toMatchObject({
      name: 'AbortError',
      message: 'The compaction was aborted',
    })
  })
})
