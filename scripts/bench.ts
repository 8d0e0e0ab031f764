/**
 * `npm run bench [name…]`: runs every suite in scripts/bench/*.bench.ts (or the named ones) in one
 * process, so that each table's figures and peer ratios come from the same run and machine.
 */
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const dir = join(dirname(fileURLToPath(import.meta.url)), 'bench')
const wanted = process.argv.slice(2)
const suites = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort()

console.log(`# chatfold bench — node ${process.version}, ${new Date().toISOString().slice(0, 10)}`)
for (const f of suites) {
  const mod = (await import(join(dir, f))) as { default: () => Promise<void> | void }
  await mod.default()
}
