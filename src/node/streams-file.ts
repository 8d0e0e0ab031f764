/**
 * The Durable Streams log in a file: one JSON record a line, appended in batches, each batch
 * written and `fdatasync`ed before it is acknowledged; a last line cut short by a crash (never
 * acknowledged) is dropped on load.
 *
 * @module
 */
import { mkdir, open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { StreamRecord, StreamsStorage } from '../streams/log.ts'

/**
 * The streams log as `streams.log` in `dir` (made when missing).
 *
 * @example
 * import { fileStreamsStorage } from 'chatfold/node'
 * import { openStreamsHandler } from 'chatfold/streams'
 * const streams = await openStreamsHandler(fileStreamsStorage('./chat-data/streams'))
 * await streams.close()
 *
 * @since 0.1.0
 * @category streams
 */
export const fileStreamsStorage = (dir: string): StreamsStorage => {
  const file = join(dir, 'streams.log')
  let handle: Awaited<ReturnType<typeof open>> | undefined
  const opened = async () => {
    if (handle !== undefined) return handle
    await mkdir(dir, { recursive: true })
    handle = await open(file, 'a')
    return handle
  }
  return {
    load: async () => {
      let bytes: Uint8Array
      try {
        bytes = await readFile(file)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
        throw e
      }
      const text = new TextDecoder().decode(bytes)
      const lines = text.split('\n')
      const out: StreamRecord[] = []
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i] as string
        if (line === '') continue
        try {
          out.push(JSON.parse(line) as StreamRecord)
        } catch (e) {
          // the last line without its newline is a write a crash cut short: it was never acknowledged
          if (i === lines.length - 1) break
          throw new Error(`${file}: line ${i + 1} is not a record: ${e instanceof Error ? e.message : String(e)}`)
        }
      }
      if (bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a) {
        // cut the torn line so that the next append starts a line of its own
        const h = await opened()
        await h.truncate(bytes.lastIndexOf(0x0a) + 1)
      }
      return out
    },
    append: async (records) => {
      const h = await opened()
      await h.write(records.map((r) => `${JSON.stringify(r)}\n`).join(''))
      await h.datasync()
    },
    close: async () => {
      await handle?.close()
      handle = undefined
    },
  }
}
