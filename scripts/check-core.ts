/**
 * Checks the rules on `src/` the type checker cannot: the core (`src/` outside runtime entry
 * points) uses Web-standard APIs only, every relative import points to a lower layer (no cycles),
 * and no file imports another folder's private (`_`-prefixed) file. Prints every violation and
 * exits 1 when there is one. Checks the repository, or the tree whose root is its argument.
 */
import { resolve } from 'node:path'
import { violations } from '../test/support/layers.ts'

const root = process.argv[2]
const found = root === undefined ? violations() : violations(resolve(root))
for (const v of found) console.error(`${v.file}:${v.line}: ${v.message}`)
if (found.length > 0) {
  console.error(`check:core: ${found.length} violation(s)`)
  process.exit(1)
}
console.log("check:core: the core is Web-standard, its imports go one way and no folder reaches into another's private files")
