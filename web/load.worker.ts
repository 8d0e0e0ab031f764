/**
 * The explorer's loader, a worker of its own: it reads and decodes a session file (or makes the
 * sample) off the page's thread, where decoding 45 MB of JSONL would block it for a second, and
 * hands the messages over in slices the page asks for one at a time, so that taking each in costs
 * the page a few milliseconds. The protocol is in `web/loader.ts`.
 */
import * as E from 'fp-ts/Either'
import type { Messages } from '../src/message/message.ts'
import { slicesOf } from '../src/internal/schedule.ts'
import { sampleSession } from '../sample/session.ts'
import { decodeSessionFiles, type Loaded } from './load.ts'
import { type LoaderReply, type LoaderRequest, SLICE_BYTES } from './loader.ts'

const scope = self as unknown as { onmessage: ((e: MessageEvent<LoaderRequest>) => void) | null; postMessage: (m: LoaderReply) => void }

/** The slices of the last load, handed out one per `next`. */
let pending: Iterator<{ readonly messages: Messages }> | undefined

const decoded = async (request: Extract<LoaderRequest, { readonly type: 'load' }>): Promise<E.Either<string, Loaded>> =>
  request.sample !== undefined
    ? E.right({ messages: sampleSession({ messages: request.sample, seed: 7 }), archive: [], notes: [], format: 'sample', cost: '' })
    : decodeSessionFiles(
      await Promise.all(
        [{ file: request.file as Blob, name: request.name ?? 'the file' }, ...(request.with ?? [])].map(async (f) => ({
          name: f.name,
          bytes: new Uint8Array(await f.file.arrayBuffer()),
        })),
      ),
    )

scope.onmessage = (event) => {
  const request = event.data
  if (request.type === 'next') {
    const next = pending?.next()
    scope.postMessage(next === undefined || next.done === true ? { type: 'end' } : { type: 'slice', messages: next.value.messages })
    return
  }
  void decoded(request).then(
    (r) => {
      if (E.isLeft(r)) {
        pending = undefined
        scope.postMessage({ type: 'error', message: r.left })
        return
      }
      // what the file's compactions replaced comes first, in the same slices (the page tells them apart by count)
      pending = slicesOf(r.right.archive.length === 0 ? r.right.messages : [...r.right.archive, ...r.right.messages], () => SLICE_BYTES)
      scope.postMessage({
        type: 'decoded',
        format: r.right.format,
        messages: r.right.messages.length,
        notes: r.right.notes,
        archived: r.right.archive.length,
        cost: r.right.cost,
      })
    },
    (e: unknown) => scope.postMessage({ type: 'error', message: `Cannot read the file: ${e instanceof Error ? e.message : String(e)}` }),
  )
}
