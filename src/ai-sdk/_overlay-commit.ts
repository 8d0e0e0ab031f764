/**
 * How `uiMessageStore` commits a compaction: as the store's overlay, compare-and-append on the head
 * its history was read at, rebased on the newer head when other messages were appended since (they
 * are kept: the summary stands only for the messages up to the one it names), and refused when one
 * of the messages it stands for was revised since.
 *
 * @module
 */
import { type Backend, type Held } from './_store-backend.ts'
import { UIMessageStoreError } from './errors.ts'

/** Most heads a compaction is rebased on before giving up (other writers keep appending). */
const MAX_REBASES = 8

/** What to commit: where the summary's range ends, how a revision of a covered message is told, the head read, and the overlay's text and metadata. */
export type OverlayCommit = {
  /** The index of the last held message the summary stands for (-1: none it names is held). */
  readonly through: (held: ReadonlyArray<Held>) => number
  /** Whether a message appended since revises one the summary stands for. */
  readonly revises: (newer: Held, covered: ReadonlyArray<Held>) => boolean
  /** The head the summarised history was read at (the current head when none was read). */
  readonly head: string | undefined
  readonly summary: string
  readonly metadata: Readonly<Record<string, unknown>>
  /** The compaction, as errors name it. */
  readonly name: string
}

/**
 * Commits the overlay: true once it is committed, false when the store cannot hold it as one (it
 * does not commit compactions, or holds none of the messages the summary names): the caller then
 * stores it as it did before.
 */
export const commitOverlay = async (backend: Backend, c: OverlayCommit): Promise<boolean> => {
  let head = c.head
  for (let attempt = 0; attempt < MAX_REBASES; attempt++) {
    const held = await backend.list()
    const first = held[0]
    const at = c.through(held)
    const through = held[at]
    if (first === undefined || through === undefined) return false
    const base = head ?? held[held.length - 1]?.id ?? through.id
    const since = held.findIndex((m) => m.id === base)
    const covered = held.slice(0, at + 1)
    if (since >= 0 && held.slice(since + 1).some((m) => c.revises(m, covered))) {
      throw new UIMessageStoreError(
        'conflict',
        `Cannot save ${c.name}: a message it stands for was saved again since its history was read; compact the history read again`,
      )
    }
    const r = await backend.compact({ from: first.id, head: base, through: through.id, summary: c.summary, metadata: c.metadata })
    if (r === 'committed') return true
    if (r === 'unsupported') return false
    // appended since the history was read: kept, and the compaction rebased on the head now
    head = r.stale ?? undefined
  }
  throw new UIMessageStoreError('conflict', `Cannot save ${c.name}: other writers kept appending (${MAX_REBASES} heads tried)`)
}
