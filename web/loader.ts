/**
 * The page's side of the explorer's loader (`web/load.worker.ts`): a file, or the sample, decoded
 * in that worker and taken in slice by slice, each asked for once the last one is in and the page
 * has had a turn of its event loop, so that no task of the page's runs long while a large file loads.
 */
import * as E from 'fp-ts/Either'
import type { Message, Messages } from '../src/message/message.ts'
import { yieldToEventLoop } from '../src/internal/schedule.ts'

/** About how many bytes of messages each slice carries: about 2 ms of the page's time to take in. */
export const SLICE_BYTES = 128 * 1024

/** A file the page was given, and its name. */
export type Picked = { readonly file: Blob; readonly name: string }

/** What the page asks: a file (or the sample of that many messages) decoded, then its slices one by one. */
export type LoaderRequest =
  | {
    readonly type: 'load'
    readonly file?: Blob
    readonly name?: string
    /** Files dropped with it: what the command line reads beside a session (sub-agent transcripts, ui_messages.json). */
    readonly with?: ReadonlyArray<Picked>
    readonly sample?: number
  }
  | { readonly type: 'next' }

/**
 * What the loader answers: how many messages were decoded (from what format, with its reader's
 * notes, its cost, and how many messages the compactions recorded in the file replaced: the slices
 * carry those first), a slice, the end, or what was wrong.
 */
export type LoaderReply =
  | {
    readonly type: 'decoded'
    readonly format: string
    readonly messages: number
    readonly notes: ReadonlyArray<string>
    readonly archived: number
    readonly cost: string
  }
  | { readonly type: 'slice'; readonly messages: Messages }
  | { readonly type: 'end' }
  | { readonly type: 'error'; readonly message: string }

/** A file taken in: its messages, its format's title, its reader's notes, the messages its compactions replaced, and what it cost. */
export type Decoded = {
  readonly messages: Messages
  readonly format: string
  readonly notes: ReadonlyArray<string>
  readonly archive: Messages
  readonly cost: string
}

/** The loader worker, started on first use from the bundle's own load.worker.js. */
let worker: Worker | undefined
const loader = (): Worker => (worker ??= new Worker(new URL('./load.worker.js', import.meta.url), { type: 'module' }))

/** The next reply of the loader, or an error when the worker could not start or threw. */
const reply = (w: Worker): Promise<LoaderReply> =>
  new Promise((resolve) => {
    const onMessage = (e: MessageEvent<LoaderReply>): void => {
      w.removeEventListener('error', onError)
      resolve(e.data)
    }
    const onError = (e: ErrorEvent): void => {
      w.removeEventListener('message', onMessage)
      resolve({ type: 'error', message: `The loader worker failed: ${e.message || 'its script could not be loaded'}` })
    }
    w.addEventListener('message', onMessage, { once: true })
    w.addEventListener('error', onError, { once: true })
  })

/**
 * Decodes a session file (or makes the sample) in the loader worker and takes its messages in;
 * `onProgress` follows the slices. `Left` says what was wrong with the file.
 */
export const loadOffThread = async (
  what: Picked & { readonly with?: ReadonlyArray<Picked> } | { readonly sample: number },
  onProgress: (done: number, total: number) => void,
): Promise<E.Either<string, Decoded>> => {
  const w = loader()
  const decoding = reply(w)
  w.postMessage({ type: 'load', ...what } satisfies LoaderRequest)
  const first = await decoding
  if (first.type === 'error') return E.left(first.message)
  if (first.type !== 'decoded') return E.left(`The loader answered ${first.type} before decoding`)
  const out: Message[] = []
  for (;;) {
    const next = reply(w)
    w.postMessage({ type: 'next' } satisfies LoaderRequest)
    const r = await next
    if (r.type === 'end') break
    if (r.type !== 'slice') return E.left(r.type === 'error' ? r.message : `The loader answered ${r.type} for a slice`)
    for (const m of r.messages) out.push(m)
    onProgress(out.length, first.archived + first.messages)
    await yieldToEventLoop()
  }
  return E.right({ messages: out.slice(first.archived), archive: out.slice(0, first.archived), format: first.format, notes: first.notes, cost: first.cost })
}
