/**
 * The commands of a served store: `chatfold serve` (the chat store's HTTP API on Node, kept on disk
 * with the file backend or in PostgreSQL) and `chatfold repair-store` (a damaged log's records moved
 * aside so that the store starts again). A start of either that fails ends with an exit code that
 * says why (see `EXIT`) and one line.
 *
 * @module
 */
import { Command, InvalidArgumentError, Option } from 'commander'
import { CliError, EXIT } from './_exit.ts'
import type { CliIO } from './_progress.ts'

const port = (value: string): number => {
  const n = Number(value)
  if (!/^\d{1,5}$/.test(value) || n > 65535) throw new InvalidArgumentError('expected a port number, 0 to 65535')
  return n
}

/** Why an address cannot be listened on, in words, by its error code. */
const LISTEN_PROBLEMS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'another program listens on it',
  EADDRNOTAVAIL: 'no network interface of this machine has that address',
  EACCES: 'not permitted (a port below 1024 needs privileges)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now',
}

/**
 * A failure to open or serve a store as the exit code and line that tell it; anything else as it
 * came. `at` is where it was asked to listen (the error of an address not available names no port).
 */
const startFailure = async (e: unknown, dir: string, at?: { readonly host: string; readonly port: number }): Promise<unknown> => {
  // loaded with the failure, as the server is: `chatfold --version` loads neither
  const { isStoreError } = await import('../store/failure.ts')
  if (isStoreError(e)) {
    if (e.code === 'corrupt') {
      const movable = /^Cannot (recover the store|replay the log): record \d+ /.test(e.message)
      return new CliError(EXIT.damaged, movable ? `${e.message}; \`chatfold repair-store ${dir}\` moves the damaged records aside` : e.message)
    }
    return new CliError(e.code === 'locked' ? EXIT.locked : EXIT.io, e.message)
  }
  const err = e as { readonly code?: unknown; readonly syscall?: unknown; readonly address?: unknown; readonly port?: unknown; readonly message?: unknown }
  if (typeof err?.code !== 'string') return e
  if (err.syscall === 'listen' || err.syscall === 'bind' || err.syscall === 'getaddrinfo') {
    const host = at?.host ?? String(err.address)
    const port = at?.port ?? err.port
    const where = `${host.includes(':') ? `[${host}]` : host}:${String(port)}`
    const why = LISTEN_PROBLEMS[err.code]
    return new CliError(EXIT.listen, `cannot listen on ${where}: ${err.code}${why === undefined || err.code === 'EADDRINUSE' ? '' : ` (${why})`}`)
  }
  return new CliError(EXIT.io, `cannot open the store in ${dir}: ${String(err.message)}`)
}

/** A token from an option or the environment: a non-empty value without whitespace. */
const tokenValue = (value: string): string => {
  if (!/^\S{16,}$/.test(value)) throw new InvalidArgumentError('expected a token of at least 16 characters without spaces')
  return value
}

/**
 * The `serve` command: `chatfold serve --data ./chat-data --port 8787 --host 127.0.0.1`. Who may
 * call: `CHATFOLD_TOKEN` (or `--token`, which other users see in `ps`: it warns) for every route,
 * `CHATFOLD_READ_TOKEN` (or `--read-token`) for reads only; beyond loopback a token is always
 * asked, and made and printed when none is given. Bad option values exit 2. `--allowed-host` names a host `Host` may carry (a proxy's public name); `--simulator`
 * serves the simulator routes.
 *
 * @example
 * import { Command } from 'commander'
 * import { serveCommand } from './_serve.ts'
 * const program = new Command('chatfold').addCommand(serveCommand())
 * program.commands.map((c) => c.name()) // ['serve']
 *
 * @since 0.1.0
 * @category cli
 */
export const serveCommand = (): Command =>
  new Command('serve')
    .description('serve the chat store over HTTP, kept on disk (every accepted request flushed before it is answered)')
    .option('-d, --data <dir>', 'the data directory (created if missing)', './chat-data')
    .option('-p, --port <port>', 'the port to listen on (0: a free one)', port, 8787)
    .option('-H, --host <host>', 'the address to listen on (beyond loopback, a token is always asked)', '127.0.0.1')
    .addOption(
      new Option(
        '--token <token>',
        'the bearer token every request must send (made and printed when listening beyond loopback without one); other users see it in ps: prefer CHATFOLD_TOKEN',
      )
        .env('CHATFOLD_TOKEN')
        .argParser(tokenValue),
    )
    .addOption(
      new Option('--read-token <token>', 'a bearer token for reads only; other users see it in ps: prefer CHATFOLD_READ_TOKEN').env('CHATFOLD_READ_TOKEN')
        .argParser(tokenValue),
    )
    .option(
      '--allowed-host <name>',
      'a host name requests may be addressed to, besides loopback and --host (repeatable)',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .option('--simulator', 'serve the simulator routes (GET /simulator, POST /simulator/advance)', false)
    .addOption(
      new Option('--postgres <url>', 'keep the store in PostgreSQL instead of --data (any number of servers may share one database)').env(
        'CHATFOLD_POSTGRES_URL',
      ),
    )
    .addOption(
      new Option('--postgres-driver <library>', 'the client library that reaches PostgreSQL (default: pg if installed, else postgres)').choices([
        'pg',
        'postgres',
      ]),
    )
    .addOption(
      new Option('--max-body-bytes <bytes>', 'the largest request body taken, in bytes (default 1048576)').env('CHATFOLD_MAX_BODY_BYTES').argParser((v) => {
        const n = Number(v)
        if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
        return n
      }),
    )
    .option('--snapshot-every <records>', 'log records between snapshots', (v) => {
      const n = Number(v)
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer')
      return n
    })
    .action(
      async (
        opts: {
          data: string
          port: number
          host: string
          token?: string
          readToken?: string
          allowedHost: string[]
          simulator: boolean
          snapshotEvery?: number
          maxBodyBytes?: number
          postgres?: string
          postgresDriver?: 'pg' | 'postgres'
        },
        command: Command,
      ) => {
        // a token on the command line is in the process list, which every user of the machine can read
        for (const [option, name, variable] of [['token', '--token', 'CHATFOLD_TOKEN'], ['readToken', '--read-token', 'CHATFOLD_READ_TOKEN']] as const) {
          if (command.getOptionValueSource(option) === 'cli')
            process.stderr.write(`chatfold: ${name} is visible to other users of this machine (ps, /proc/<pid>/cmdline); set ${variable} instead\n`)
        }
        const handler = {
          simulator: opts.simulator,
          ...(opts.token === undefined ? {} : { token: opts.token }),
          ...(opts.readToken === undefined ? {} : { readToken: opts.readToken }),
          ...(opts.allowedHost.length === 0 ? {} : { allowedHosts: opts.allowedHost }),
          ...(opts.maxBodyBytes === undefined ? {} : { maxBodyBytes: opts.maxBodyBytes }),
        }
        const every = opts.snapshotEvery === undefined ? {} : { snapshotEvery: opts.snapshotEvery }
        if (opts.postgres !== undefined && opts.postgres !== '') {
          try {
            const { servePostgresStore } = await import('../postgres/serve.ts')
            const driver = opts.postgresDriver === undefined ? {} : { driver: opts.postgresDriver }
            await servePostgresStore({ url: opts.postgres, port: opts.port, host: opts.host, handler, ...every, ...driver })
          } catch (e) {
            throw await startFailure(e, 'the PostgreSQL database')
          }
          return
        }
        try {
          // the server's modules load only when it is asked for
          const { serveChatStore } = await import('../node/serve.ts')
          await serveChatStore({
            dataDir: opts.data,
            port: opts.port,
            host: opts.host,
            handler,
            ...(opts.snapshotEvery === undefined ? {} : { snapshotEvery: opts.snapshotEvery }),
          })
        } catch (e) {
          throw await startFailure(e, opts.data, { host: opts.host, port: opts.port })
        }
      },
    )

/** How many records set aside `repair-store` names on its output (the quarantine file holds them all). */
const REPAIR_EXAMPLES = 5

/**
 * The `repair-store` command: `chatfold repair-store ./chat-data` rebuilds a log that cannot be
 * replayed (damaged lines, records out of place): what it sets aside goes into a quarantine file
 * beside it; it prints a summary with a few examples.
 *
 * @example
 * import { Command } from 'commander'
 * import { repairStoreCommand } from './_serve.ts'
 * const program = new Command('chatfold').addCommand(repairStoreCommand({ out: () => {}, err: () => {}, errIsTTY: false }))
 * program.commands.map((c) => c.name()) // ['repair-store']
 *
 * @since 0.1.0
 * @category cli
 */
export const repairStoreCommand = (io: CliIO): Command =>
  new Command('repair-store')
    .description(
      'rebuild a store log that cannot be replayed (damaged lines set aside into a quarantine file beside it, records out of place renumbered), so that the store starts again',
    )
    .argument('<dir>', 'the data directory of the store')
    .action(async (dir: string) => {
      let r: Awaited<ReturnType<typeof import('../node/repair-store.ts').repairFileStore>>
      try {
        const { repairFileStore } = await import('../node/repair-store.ts')
        r = await repairFileStore(dir)
      } catch (e) {
        throw await startFailure(e, dir)
      }
      if (r.quarantine === undefined && r.renumbered === 0) {
        io.out(`${dir}: the log has no damaged record; nothing moved\n`)
        return
      }
      const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
      // a summary and a few examples: the quarantine file lists every record set aside
      if (r.quarantine !== undefined) {
        io.out(
          `set aside ${plural(r.moved.length, 'record')} into ${r.quarantine} (the store no longer holds what ${r.moved.length === 1 ? 'it' : 'they'} held):\n`,
        )
        for (const m of r.moved.slice(0, REPAIR_EXAMPLES)) io.out(`  ${m.file}, line ${m.line}, byte ${m.byte} (${m.problem}): ${m.what}\n`)
        if (r.moved.length > REPAIR_EXAMPLES) io.out(`  … and ${r.moved.length - REPAIR_EXAMPLES} more, each in the quarantine file\n`)
      }
      const renumbered = r.renumbered === 0 ? '' : `, ${r.renumbered} of them renumbered (their numbers used twice or out of place)`
      io.out(`kept ${plural(r.kept, 'record')} in the order written${renumbered}: the store now ends at record ${r.lastRecord}\n`)
    })
