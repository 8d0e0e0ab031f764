/**
 * Serving a module under `deno serve --unstable-kv` for the tests and the bench: on a free port of
 * 127.0.0.1, its Deno KV database in a directory the caller gives, restartable on the same data.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { freePort, servedEnv, type ServedStore, stopChild, waitUntilUp } from '../../support/served-store.ts'
import { ROOT } from './workerd.ts'

const deno = join(ROOT, 'node_modules', '.bin', 'deno')

/** Serves `module` (a path from the repository's root) with its KV database in `dir` (`chat.sqlite3`). */
export const serveDeno = async (module: string, dir: string): Promise<ServedStore & { readonly dir: string }> => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const start = (): ChildProcess =>
    spawn(deno, [
      'serve',
      '--unstable-kv',
      '--allow-read',
      '--allow-write',
      '--allow-env=CHATFOLD_KV,CHATFOLD_TOKEN,CHATFOLD_READ_TOKEN',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      module,
    ], { cwd: ROOT, env: servedEnv({ CHATFOLD_KV: join(dir, 'chat.sqlite3'), NO_COLOR: '1' }), stdio: ['ignore', 'ignore', 'ignore'] })
  let child = start()
  await waitUntilUp(origin, 60_000)
  return {
    dir,
    url: () => origin,
    restart: async (how) => {
      await stopChild(child, how === 'kill' ? 'SIGKILL' : 'SIGTERM')
      child = start()
      await waitUntilUp(origin, 60_000)
    },
    stop: () => stopChild(child, 'SIGKILL'),
  }
}
