import { describe, expect, it } from 'vitest'
import * as O from 'fp-ts/Option'
import { createChat } from '../../src/builder/chat.ts'
import { textContent } from '../../src/message/accessors.ts'
import { makeMessage, type Message, textMessage } from '../../src/message/message.ts'
import { deepFreeze } from '../support/arbitraries.ts'

const msg = (i: number, sender = 'bot'): Message => deepFreeze(textMessage('assistant', `m${i}`, { id: `m${i}`, sender }))
const tick = (ms = 0) => new Promise<void>((r) => setTimeout(r, ms))

describe('createChat (seed 000)', () => {
  it('holds a multi-turn conversation', () => {
    const c = createChat(textMessage('system', 'You are a helpful assistant.'), textMessage('user', 'What is Go?', { sender: 'alice' }))
    c.append(textMessage('assistant', 'Go is a programming language.', { sender: 'bot' }))
    expect(c.systemPrompt()).toBe('You are a helpful assistant.')
    expect(c.len()).toBe(3)
  })

  it('at and last return Option, none out of range', () => {
    const c = createChat(msg(0), msg(1))
    expect(c.at(1)).toEqual(O.some(msg(1)))
    for (const i of [-1, 2, 99, 0.5, Number.NaN]) expect(c.at(i)).toEqual(O.none)
    expect(c.last()).toEqual(O.some(msg(1)))
    expect(createChat().last()).toEqual(O.none)
  })

  it('messages() is a snapshot the caller cannot use to change the chat', () => {
    const c = createChat(msg(0))
    const snap = c.messages()
    expect(() => (snap as Message[]).push(msg(9))).toThrow(TypeError)
    c.append(msg(1))
    expect(snap).toHaveLength(1)
    expect(c.messages()).toHaveLength(2)
    expect(c.messages()).toBe(c.messages()) // cached until the next change
  })

  it('does not keep the caller array', () => {
    const initial = [msg(0)]
    const c = createChat(...initial)
    initial.push(msg(1))
    expect(c.len()).toBe(1)
  })

  it('each visits in order and stops early', () => {
    const c = createChat(msg(0), msg(1), msg(2), msg(3))
    const seen: number[] = []
    c.each((i) => {
      seen.push(i)
      return i < 1
    })
    expect(seen).toEqual([0, 1])
    const all: string[] = []
    c.each((_, m) => void all.push(m.id))
    expect(all).toEqual(['m0', 'm1', 'm2', 'm3'])
  })

  it('each may call the chat: it walks the messages there were when it began', () => {
    const c = createChat(msg(0), msg(1))
    let calls = 0
    c.each(() => {
      calls++
      c.append(msg(10 + calls))
    })
    expect(calls).toBe(2)
    expect(c.len()).toBe(4)
  })

  it('bySender filters by sender', () => {
    const c = createChat(msg(0, 'alice'), msg(1, 'critic'), msg(2, 'alice'))
    expect(c.bySender('alice').map((m) => m.id)).toEqual(['m0', 'm2'])
    expect(c.bySender('nobody')).toEqual([])
  })

  it('systemPrompt is the first system message wherever it is, or empty', () => {
    expect(createChat(msg(0)).systemPrompt()).toBe('')
    const c = createChat(textMessage('user', 'hi'), textMessage('system', 'first'), textMessage('system', 'second'))
    expect(c.systemPrompt()).toBe('first')
  })

  it('since returns the tail, empty for a negative, equal or larger offset', () => {
    const c = createChat(msg(0), msg(1), msg(2))
    expect(c.since(0).map((m) => m.id)).toEqual(['m0', 'm1', 'm2'])
    expect(c.since(2).map((m) => m.id)).toEqual(['m2'])
    for (const o of [-1, 3, 4]) expect(c.since(o)).toEqual([])
    expect(() => (c.since(1) as Message[]).pop()).toThrow(TypeError)
  })

  it('replace swaps every message', () => {
    const c = createChat(msg(0), msg(1))
    c.replace(msg(5))
    expect(c.messages().map((m) => m.id)).toEqual(['m5'])
  })

  it('forks share nothing mutable (seed branching example)', () => {
    const shared = createChat(textMessage('system', 'You are a helpful assistant.'), textMessage('user', 'Propose a name.', { sender: 'user' }))
    const creative = createChat(...shared.messages())
    creative.append(textMessage('assistant', "How about 'testigo'?", { sender: 'creative' }))
    const practical = createChat(...shared.messages())
    practical.append(textMessage('assistant', "I suggest 'goassert'.", { sender: 'practical' }))
    shared.replace()
    expect(shared.len()).toBe(0)
    expect(creative.len()).toBe(3)
    expect(practical.len()).toBe(3)
    expect(creative.bySender('practical')).toEqual([])
    expect(O.map(textContent)(practical.last())).toEqual(O.some("I suggest 'goassert'."))
  })
})

describe('wait', () => {
  it('resolves at once when there are already more than n messages', async () => {
    const c = createChat(msg(0), msg(1))
    await expect(c.wait(1)).resolves.toBe(2)
    await expect(c.wait(-5)).resolves.toBe(2)
  })

  it('resolves with the count on append', async () => {
    const c = createChat(msg(0))
    const p = c.wait(1)
    c.append(msg(1), msg(2))
    await expect(p).resolves.toBe(3)
  })

  it('wakes on replace when the new messages are more than n, and keeps waiting otherwise', async () => {
    const c = createChat(msg(0))
    let settled = false
    const p = c.wait(2).then((n) => {
      settled = true
      return n
    })
    c.replace(msg(1))
    await tick()
    expect(settled).toBe(false)
    c.replace(msg(1), msg(2), msg(3), msg(4))
    await expect(p).resolves.toBe(4)
  })

  it('rejects with the signal reason when aborted, before or while waiting', async () => {
    const c = createChat()
    const pre = new AbortController()
    pre.abort(new Error('gone'))
    await expect(c.wait(0, { signal: pre.signal })).rejects.toThrow('gone')
    const later = new AbortController()
    const p = c.wait(0, { signal: later.signal })
    later.abort()
    await expect(p).rejects.toMatchObject({ name: 'AbortError' })
    c.append(msg(0)) // the aborted waiter is gone: nothing to resolve, nothing thrown
    expect(c.len()).toBe(1)
  })

  it('a resolved wait ignores a later abort', async () => {
    const c = createChat()
    const ctl = new AbortController()
    const p = c.wait(0, { signal: ctl.signal })
    c.append(msg(0))
    ctl.abort()
    await expect(p).resolves.toBe(1)
  })

  it('wakes every waiter, each when its own n is passed', async () => {
    const c = createChat()
    const ps = [0, 1, 2, 3].map((n) => c.wait(n))
    c.append(msg(0), msg(1))
    c.append(msg(2), msg(3))
    expect(await Promise.all(ps)).toEqual([2, 2, 4, 4])
  })

  it('many concurrent waiters and appends interleaved with timers lose no wake-up and see messages in order', async () => {
    const c = createChat()
    const total = 300
    let seed = 7
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % k
    }
    // consumers in the seed's streaming style: wait(cursor) then since(cursor)
    const consume = async (): Promise<string[]> => {
      const seen: string[] = []
      let cursor = 0
      while (cursor < total) {
        await c.wait(cursor)
        const fresh = c.since(cursor)
        for (const m of fresh) seen.push(m.id)
        cursor += fresh.length
        if (rand(3) === 0) await tick(rand(2))
      }
      return seen
    }
    const iterate = async (): Promise<string[]> => {
      const seen: string[] = []
      for await (const m of c.updates({ from: 0 })) {
        seen.push(m.id)
        if (seen.length === total) break
      }
      return seen
    }
    const consumers = [...Array.from({ length: 20 }, consume), ...Array.from({ length: 10 }, iterate)]
    const produce = async () => {
      let i = 0
      while (i < total) {
        const batch = Math.min(total - i, 1 + rand(5))
        c.append(...Array.from({ length: batch }, (_, k) => msg(i + k)))
        i += batch
        if (rand(2) === 0) await tick(rand(2))
        else await Promise.resolve()
      }
    }
    const [results] = await Promise.all([Promise.all(consumers), produce()])
    const expected = Array.from({ length: total }, (_, i) => `m${i}`)
    for (const r of results) expect(r).toEqual(expected)
  })
})

describe('updates', () => {
  it('yields the messages appended after it began, in order', async () => {
    const c = createChat(msg(0))
    const it = c.updates()
    const first = it.next()
    c.append(msg(1), msg(2))
    expect(await first).toEqual({ value: msg(1), done: false })
    expect(await it.next()).toEqual({ value: msg(2), done: false })
    await it.return?.()
  })

  it('can start from an index', async () => {
    const c = createChat(msg(0), msg(1))
    const it = c.updates({ from: 1 })
    expect((await it.next()).value).toEqual(msg(1))
    await it.return?.()
  })

  it('return() ends a pending next and releases it', async () => {
    const c = createChat()
    const it = c.updates()
    const pending = it.next()
    await expect(it.return?.()).resolves.toEqual({ value: undefined, done: true })
    await expect(pending).resolves.toEqual({ value: undefined, done: true })
    c.append(msg(0))
    await expect(it.next()).resolves.toEqual({ value: undefined, done: true })
  })

  it('break out of for await cleans up', async () => {
    const c = createChat(msg(0), msg(1), msg(2))
    const seen: string[] = []
    for await (const m of c.updates({ from: 0 })) {
      seen.push(m.id)
      if (seen.length === 2) break
    }
    expect(seen).toEqual(['m0', 'm1'])
  })

  it('an abort signal ends the iteration', async () => {
    const c = createChat()
    const ctl = new AbortController()
    const seen: string[] = []
    const loop = (async () => {
      for await (const m of c.updates({ signal: ctl.signal })) seen.push(m.id)
    })()
    c.append(msg(0))
    await tick()
    ctl.abort()
    await loop
    expect(seen).toEqual(['m0'])
  })

  it('yields the very message objects appended, not copies', async () => {
    const c = createChat()
    const it = c.updates()
    const m = makeMessage({ role: 'user', parts: [] })
    c.append(m)
    expect((await it.next()).value).toBe(m)
    await it.return?.()
  })
})
