/**
 * Two servers of one database served as one store: `url()` alternates between them, `restart`
 * stops one (SIGKILL or SIGTERM), in turn, and starts it again; `stop` kills both. The deploy
 * tests of `chatfold serve --postgres` run the store contract over it, one per client library.
 */
import { type Child, type ServedStore, stopChild } from '../../support/served-store.ts'

/** A server started, with the line that says where it listens (`match[1]` its origin). */
type Started = Child & { readonly match: RegExpExecArray }

/** Two servers started by `start` (together: both migrate and create the store at once, and the database lets one do it). */
export const servedPair = async (start: () => Promise<Started>): Promise<ServedStore> => {
  const children: Started[] = await Promise.all([start(), start()])
  let turn = 0
  let next = 0
  return {
    url: () => children[turn++ % 2]?.match[1] as string,
    restart: async (how) => {
      const i = next++ % 2
      const child = children[i]
      if (child !== undefined) await stopChild(child.process, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      children[i] = await start()
    },
    stop: async () => {
      await Promise.all(children.map((c) => stopChild(c.process, 'SIGKILL')))
    },
  }
}
