#!/usr/bin/env node
// The `chatfold` command: runs the built program (dist/) when there is one, and the TypeScript
// source through tsx otherwise (a clone after `npm ci`, before `npm run build`).
import { existsSync } from 'node:fs'

process.stdout.on('error', (e) => {
  // a reader that stops early (`chatfold render … | head`) is not an error
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
  // an output that cannot be written (a full disk, /dev/full): one line, and the exit code of a file that cannot be written (3)
  process.stderr.write(`chatfold: cannot write the output: ${e.code ?? e.message}${e.code === 'ENOSPC' ? ' (no space left)' : ''}\n`)
  process.exit(3)
})

const built = new URL('../dist/src/cli/main.js', import.meta.url)
const main = existsSync(built)
  ? await import(built.href)
  : await (await import('tsx/esm/api')).tsImport('../src/cli/main.ts', import.meta.url)
process.exitCode = await main.run(process.argv.slice(2), {
  out: (s) => void process.stdout.write(s),
  err: (s) => void process.stderr.write(s),
  errIsTTY: process.stderr.isTTY === true,
})
