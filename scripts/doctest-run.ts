/**
 * Runs the doc examples that scripts/doctest.ts wrote (the list is its first argument), one after
 * another in this process, each with the second argument (a scratch folder) as working directory,
 * console output silenced and a time limit. Prints each failure with its source place and exits 1
 * if any failed. Not meant to be run by hand: `npm run test:examples` starts it.
 */
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const [list, scratch] = process.argv.slice(2)
if (list === undefined || scratch === undefined) throw new Error('Usage: doctest-run.ts RUN.json SCRATCH_DIR')
const examples = JSON.parse(readFileSync(list, 'utf8')) as ReadonlyArray<{ file: string; at: string }>
const LIMIT_MS = 20_000

const quiet = <T>(f: () => Promise<T>): Promise<T> => {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error }
  const mute = (): void => {}
  Object.assign(console, { log: mute, info: mute, warn: mute, error: mute })
  return f().finally(() => Object.assign(console, saved))
}

const failures: string[] = []
process.chdir(scratch)
for (const e of examples) {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    await quiet(() =>
      Promise.race([
        import(pathToFileURL(e.file).href),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`did not finish within ${LIMIT_MS / 1000} s`)), LIMIT_MS)
        }),
      ])
    )
  } catch (error) {
    failures.push(`${e.at}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`)
  } finally {
    clearTimeout(timer)
  }
}
for (const f of failures) console.error(f)
// servers or workers an example started are ended with the process
process.exit(failures.length === 0 ? 0 : 1)
