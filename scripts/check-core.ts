/**
 * Checks the two rules the type checker cannot: the core (`src/` outside runtime entry points)
 * uses Web-standard APIs only, and every relative import points to a lower layer (no cycles).
 * Prints every violation and exits 1 when there is one.
 */
import { violations } from '../test/support/layers.ts'

const found = violations()
for (const v of found) console.error(`${v.file}:${v.line}: ${v.message}`)
if (found.length > 0) {
  console.error(`check:core: ${found.length} violation(s)`)
  process.exit(1)
}
console.log('check:core: the core is Web-standard and its imports go one way')
