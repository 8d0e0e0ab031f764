/**
 * `chatfold serve`: the chat store's HTTP API on Node, kept on disk with the file backend.
 *
 * @module
 */
import { Command, InvalidArgumentError } from 'commander'

const port = (value: string): number => {
  const n = Number(value)
  if (!/^\d{1,5}$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port number, 0 to 65535')
  return n
}

/**
 * The `serve` command: `chatfold serve --data ./chat-data --port 8787 --host 127.0.0.1`.
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
    .option('-H, --host <host>', 'the address to listen on', '127.0.0.1')
    .option('--snapshot-every <records>', 'log records between snapshots', (v) => {
      const n = Number(v)
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
      return n
    })
    .action(async (opts: { data: string; port: number; host: string; snapshotEvery?: number }) => {
      // the server's modules load when it starts, not with the program
      const { serveChatStore } = await import('../node/serve.ts')
      await serveChatStore({ dataDir: opts.data, port: opts.port, host: opts.host, ...(opts.snapshotEvery === undefined ? {} : { snapshotEvery: opts.snapshotEvery }) })
    })
