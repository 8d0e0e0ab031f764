/**
 * The `chatfold` command as the built package runs it, for tests and benches that start it many
 * times: bin/chatfold.mjs copied into a temporary directory beside the command line's sources
 * bundled by esbuild into `dist/src/cli/main.js` (where the bin looks first). Started from the
 * sources, each start compiles them through tsx (about a second of CPU on this kind of machine);
 * bundled once, a start costs a third of that, which is what lets a test restart servers a hundred
 * times. The program is the same: the bin, the same sources, `pg` bundled with them.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { ROOT } from './workerd.ts'

/** Bundles the command line once into a temporary directory; resolves to its bin (run it with `node`). */
export const bundleCli = async (): Promise<string> => {
  const dir = mkdtempSync(join(tmpdir(), 'chatfold-cli-'))
  mkdirSync(join(dir, 'bin'))
  await build({
    entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')],
    outfile: join(dir, 'dist', 'src', 'cli', 'main.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // pg's native binding is optional and absent; CommonJS dependencies (pg) call require, which an ES module lacks
    external: ['pg-native'],
    banner: { js: "import { createRequire as __chatfoldRequire } from 'node:module'; const require = __chatfoldRequire(import.meta.url);" },
    logLevel: 'error',
  })
  copyFileSync(join(ROOT, 'bin', 'chatfold.mjs'), join(dir, 'bin', 'chatfold.mjs'))
  return join(dir, 'bin', 'chatfold.mjs')
}
