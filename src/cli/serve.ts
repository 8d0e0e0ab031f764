/**
 * `chatfold serve`: the chat store's HTTP API on Node, kept on disk with the file backend.
 *
 * @module
 */
import { Command, InvalidArgumentError, Option } from 'commander'
import { serveChatStore } from '../node/serve.ts'

const port = (value: string): number => {
  const n = Number(value)
  if (!/^\d{1,5}$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port number, 0 to 65535')
  return n
}

/** A token from an option or the environment: a non-empty value without whitespace. */
const tokenValue = (value: string): string => {
  if (!/^\S{16,}$/.test(value)) throw new InvalidArgumentError('expected a token of at least 16 characters without spaces')
  return value
}

/**
 * The `serve` command: `chatfold serve --data ./chat-data --port 8787 --host 127.0.0.1`. Who may
 * call: `--token` (or `CHATFOLD_TOKEN`) for every route, `--read-token` (or `CHATFOLD_READ_TOKEN`)
 * for reads only; beyond loopback a token is always asked, and made and printed when none is
 * given. `--allowed-host` names a host `Host` may carry (a proxy's public name); `--simulator`
 * serves the simulator routes.
 *
 * @example
 * import { Command } from 'commander'
 * import { serveCommand } from './serve.ts'
 * const program = new Command('chatfold').addCommand(serveCommand())
 * program.commands.map((c) => c.name()) // ['serve']
 *
 * @since 0.2.0
 * @category cli
 */
export const serveCommand = (): Command =>
  new Command('serve')
    .description('serve the chat store over HTTP, kept on disk (every accepted request flushed before it is answered)')
    .option('-d, --data <dir>', 'the data directory (created if missing)', './chat-data')
    .option('-p, --port <port>', 'the port to listen on (0: a free one)', port, 8787)
    .option('-H, --host <host>', 'the address to listen on (beyond loopback, a token is always asked)', '127.0.0.1')
    .addOption(new Option('--token <token>', 'the bearer token every request must send (made and printed when listening beyond loopback without one)').env('CHATFOLD_TOKEN').argParser(tokenValue))
    .addOption(new Option('--read-token <token>', 'a bearer token for reads only').env('CHATFOLD_READ_TOKEN').argParser(tokenValue))
    .option('--allowed-host <name>', 'a host name requests may be addressed to, besides loopback and --host (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--simulator', 'serve the simulator routes (GET /simulator, POST /simulator/advance)', false)
    .option('--snapshot-every <records>', 'log records between snapshots', (v) => {
      const n = Number(v)
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
      return n
    })
    .action(async (opts: { data: string; port: number; host: string; token?: string; readToken?: string; allowedHost: string[]; simulator: boolean; snapshotEvery?: number }) => {
      const handler = {
        simulator: opts.simulator,
        ...(opts.token === undefined ? {} : { token: opts.token }),
        ...(opts.readToken === undefined ? {} : { readToken: opts.readToken }),
        ...(opts.allowedHost.length === 0 ? {} : { allowedHosts: opts.allowedHost }),
      }
      await serveChatStore({ dataDir: opts.data, port: opts.port, host: opts.host, handler, ...(opts.snapshotEvery === undefined ? {} : { snapshotEvery: opts.snapshotEvery }) })
    })
