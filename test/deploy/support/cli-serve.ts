// `chatfold serve` as the command line runs it: a program with the serve command, given argv.
import { Command } from 'commander'
import { serveCommand } from '../../../src/cli/serve.ts'

await new Command('chatfold').addCommand(serveCommand()).parseAsync(process.argv)
