/**
 * Child process of the crash test: saves two large sessions (the texts of files A and B) over
 * the same file, in turn, forever, until it is killed. `atomic` saves with `writeAtomic` (what
 * `saveHistory` does); `naive` rewrites the file in place, a line per write, as a control that
 * shows the test detects a torn file.
 * Usage: save-loop.ts FILE atomic|naive A B
 */
import { open, readFile } from 'node:fs/promises'
import { writeAtomic } from '../../../src/node/session-file.ts'

const [file, mode, pathA, pathB] = process.argv.slice(2)
if (file === undefined || (mode !== 'atomic' && mode !== 'naive') || pathA === undefined || pathB === undefined) {
  process.stderr.write('usage: save-loop.ts FILE atomic|naive A B\n')
  process.exit(2)
}
const a = await readFile(pathA, 'utf8')
const b = await readFile(pathB, 'utf8')
const lines = (text: string) => text.split(/(?<=\n)/).map((l) => Buffer.from(l))
const naive = [lines(a), lines(b)] as const
for (let i = 0;; i++) {
  const text = i % 2 === 0 ? a : b
  if (mode === 'naive') {
    const fh = await open(file, 'w')
    for (const line of naive[i % 2] ?? []) await fh.write(line)
    await fh.close()
  } else {
    const r = await writeAtomic(file, text)
    if (r._tag === 'Left') {
      process.stderr.write(`save failed: ${JSON.stringify(r.left)}\n`)
      process.exit(3)
    }
  }
  process.stdout.write(`saved ${i}\n`)
}
