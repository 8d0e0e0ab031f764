/**
 * The Chat container: an ordered, growing list of messages for streaming consumers.
 * `append` and `replace` change it and wake every `wait`; `since` and `updates()` read what is new.
 * JavaScript runs one callback at a time, so no lock is needed, and every read returns a frozen
 * snapshot: nothing a caller gets back can change the chat, and nothing the chat does later changes
 * what a caller holds. Messages are immutable values, shared between a chat and its forks.
 *
 * @module
 */
import * as O from 'fp-ts/Option'
import { hasRole, textContent } from '../message/accessors.ts'
import { type Message, type Messages } from '../message/message.ts'
import { abortReason } from '../internal/abort.ts'

// --- model ---

/**
 * Options of `wait` and `updates`: an `AbortSignal` that ends the wait (or the iteration).
 *
 * @since 0.1.0
 * @category model
 */
export type WaitOptions = { readonly signal?: AbortSignal }

/**
 * Options of `updates`: where to start (a message index; by default the current length, so only
 * messages appended from now on), and a signal that ends the iteration.
 *
 * @since 0.1.0
 * @category model
 */
export type UpdatesOptions = WaitOptions & { readonly from?: number }

/**
 * A mutable, ordered conversation. Methods are plain functions over a private
 * array; none of them throws on data, and lookups that can miss return `Option`.
 *
 * - `append(...ms)` / `replace(...ms)`: add messages / swap them all; both wake every waiter;
 * - `len()`, `at(i)` and `last()` (`Option`), `messages()` (a frozen snapshot);
 * - `each(f)`: calls `f(index, message)` in order until it returns `false`;
 * - `bySender(s)`: the messages whose `sender` is `s`;
 * - `systemPrompt()`: the text of the first system message, wherever it is ('' when none);
 * - `since(offset)`: the messages from `offset` on (empty for a negative, equal or larger offset);
 * - `wait(n, { signal })`: resolves with the length as soon as it is above `n` (at once if it is
 *   already), rejects with the signal's reason when aborted first;
 * - `updates({ from, signal })`: an async iterator of the messages appended after `from`, in order;
 *   `return()` (a `break` out of `for await`) or the signal ends it and releases its waiter.
 *
 * @since 0.1.0
 * @category model
 */
export type Chat = {
  readonly append: (...messages: ReadonlyArray<Message>) => void
  readonly replace: (...messages: ReadonlyArray<Message>) => void
  readonly len: () => number
  readonly at: (index: number) => O.Option<Message>
  readonly last: () => O.Option<Message>
  readonly messages: () => Messages
  readonly each: (f: (index: number, message: Message) => boolean | void) => void
  readonly bySender: (sender: string) => Messages
  readonly systemPrompt: () => string
  readonly since: (offset: number) => Messages
  readonly wait: (n: number, options?: WaitOptions) => Promise<number>
  readonly updates: (options?: UpdatesOptions) => AsyncIterableIterator<Message>
}

// --- helpers ---

type Waiter = { readonly n: number; readonly resolve: (count: number) => void }

const EMPTY: Messages = Object.freeze([])

const WAIT_ABORTED = 'The wait was aborted'

/** An integer position: NaN is 0, fractions round down, infinities stay. */
const position = (n: number): number => (Number.isNaN(n) ? 0 : Math.floor(n))

// --- constructors ---

/**
 * Makes a chat holding `messages`. Forking is making a chat from another's
 * snapshot: the two share no mutable state.
 *
 * @example
 * import { createChat } from 'chatfold/builder'
 * import { textMessage } from 'chatfold/message'
 * const shared = createChat(textMessage('system', 'You are a helpful assistant.'), textMessage('user', 'Name a library.'))
 * const creative = createChat(...shared.messages())
 * creative.append(textMessage('assistant', "How about 'testigo'?", { sender: 'creative' }))
 * shared.len() // 2
 * creative.len() // 3
 *
 * @since 0.1.0
 * @category constructors
 */
export const createChat = (...initial: ReadonlyArray<Message>): Chat => {
  // private and only ever pushed to; replace swaps in a new array
  let items: Message[] = initial.slice()
  let snapshot: Messages | undefined
  const waiters = new Set<Waiter>()

  const frozen = (): Messages => {
    if (snapshot === undefined) snapshot = Object.freeze(items.slice())
    return snapshot
  }

  const changed = (): void => {
    snapshot = undefined
    const count = items.length
    for (const w of [...waiters]) {
      if (count > w.n) {
        waiters.delete(w)
        w.resolve(count)
      }
    }
  }

  const wait = (n: number, options: WaitOptions = {}): Promise<number> => {
    const at = position(n)
    if (items.length > at) return Promise.resolve(items.length)
    const signal = options.signal
    if (signal?.aborted === true) return Promise.reject(abortReason(signal, WAIT_ABORTED))
    return new Promise<number>((resolve, reject) => {
      const onAbort = (): void => {
        waiters.delete(waiter)
        reject(abortReason(signal as AbortSignal, WAIT_ABORTED))
      }
      const waiter: Waiter = {
        n: at,
        resolve: (count) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(count)
        },
      }
      waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  const updates = (options: UpdatesOptions = {}): AsyncIterableIterator<Message> => {
    let cursor = Math.max(0, options.from === undefined ? items.length : position(options.from))
    let closed = false
    const stop = new AbortController()
    const close = (): void => {
      if (closed) return
      closed = true
      stop.abort()
      options.signal?.removeEventListener('abort', close)
    }
    if (options.signal?.aborted === true) close()
    else options.signal?.addEventListener('abort', close, { once: true })
    const done: IteratorReturnResult<undefined> = { value: undefined, done: true }
    const iterator: AsyncIterableIterator<Message> = {
      next: async (): Promise<IteratorResult<Message>> => {
        while (!closed) {
          const m = items[cursor]
          if (m !== undefined) {
            cursor++
            return { value: m, done: false }
          }
          try {
            await wait(cursor, { signal: stop.signal })
          } catch {
            break
          }
        }
        return done
      },
      return: async (): Promise<IteratorResult<Message>> => {
        close()
        return done
      },
      [Symbol.asyncIterator]: () => iterator,
    }
    return iterator
  }

  return {
    append: (...messages) => {
      if (messages.length === 0) return
      for (const m of messages) items.push(m)
      changed()
    },
    replace: (...messages) => {
      items = messages.slice()
      changed()
    },
    len: () => items.length,
    at: (index) => (Number.isInteger(index) && index >= 0 ? O.fromNullable(items[index]) : O.none),
    last: () => O.fromNullable(items[items.length - 1]),
    messages: frozen,
    each: (f) => {
      // over the messages there are now, even if f appends or replaces
      const list = items
      const end = list.length
      for (let i = 0; i < end; i++) if (f(i, list[i] as Message) === false) return
    },
    bySender: (sender) => Object.freeze(items.filter((m) => m.sender === sender)),
    systemPrompt: () => {
      const m = items.find(hasRole('system'))
      return m === undefined ? '' : textContent(m)
    },
    since: (offset) => {
      const from = position(offset)
      return from < 0 || from >= items.length ? EMPTY : Object.freeze(items.slice(from))
    },
    wait,
    updates,
  }
}
