/**
 * Bundles the fixture pages with each bundler, the way each documents it, into a folder with an
 * `index.html` per page. The fixture imports `chatfold` by name, resolved (as a user's would be)
 * through `node_modules/chatfold`, a link to the built package.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * A project folder as `npm install chatfold` leaves it: the fixture in `src/`, and in
 * `node_modules/` chatfold and its dependencies side by side (links to the built package and to
 * this checkout's installed dependencies).
 */
export const makeProject = (dir: string): string => {
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  cpSync(join(root, 'test', 'bundlers', 'fixture'), join(dir, 'src'), { recursive: true })
  symlinkSync(root, join(dir, 'node_modules', 'chatfold'), 'dir')
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  for (const name of Object.keys(manifest.dependencies)) symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', private: true, type: 'module', dependencies: { chatfold: '*' } }))
  return dir
}

const html = (script: string): string => `<!doctype html><meta charset="utf-8"><title>fixture</title><script type="module" src="./${script}"></script>\n`

/** `page` is the fixture page (`page` or `page-host`); the bundle goes to `out/`, opened as `out/index.html`. */
export type Bundler = {
  readonly name: string
  /** Which fixture page: `page` (no configuration) or `page-host` (the documented `host:` line). */
  readonly page: 'page' | 'page-host'
  readonly bundle: (project: string, out: string) => Promise<void>
}

/** esbuild alone: the worker is a second entry point, and the page says where it is. */
export const esbuildEntry: Bundler = {
  name: 'esbuild, worker as a second entry',
  page: 'page-host',
  bundle: async (project, out) => {
    const { build } = await import('esbuild')
    await build({
      absWorkingDir: project,
      entryPoints: { 'page-host': 'src/page-host.js', 'engine.worker': 'chatfold/worker' },
      bundle: true,
      format: 'esm',
      outdir: out,
      logLevel: 'silent',
    })
    writeFileSync(join(out, 'index.html'), html('page-host.js'))
  },
}

/** esbuild with nothing: the failure a user meets first (the worker is not emitted). */
export const esbuildBare: Bundler = {
  name: 'esbuild without a plugin',
  page: 'page',
  bundle: async (project, out) => {
    const { build } = await import('esbuild')
    await build({ absWorkingDir: project, entryPoints: ['src/page.js'], bundle: true, format: 'esm', outdir: out, logLevel: 'silent' })
    writeFileSync(join(out, 'index.html'), html('page.js'))
  },
}

export const vite: Bundler = {
  name: 'Vite',
  page: 'page',
  bundle: async (project, out) => {
    const { build } = await import('vite')
    await build({
      root: project,
      configFile: false,
      logLevel: 'silent',
      // the page is served from a sub-folder: asset URLs relative to it, not to the site's root
      base: './',
      build: { outDir: out, emptyOutDir: true, rollupOptions: { input: join(project, 'src', 'page.js') }, minify: false },
      worker: { format: 'es' },
    })
    const script = readdirSync(join(out, 'assets')).find((f) => f.startsWith('page') && f.endsWith('.js'))
    if (script === undefined) throw new Error('Vite emitted no page chunk')
    writeFileSync(join(out, 'index.html'), html(`assets/${script}`))
  },
}

export const webpack: Bundler = {
  name: 'webpack 5',
  page: 'page',
  bundle: async (project, out) => {
    const { default: wp } = await import('webpack')
    const stats = await new Promise<import('webpack').Stats | undefined>((resolve, reject) =>
      wp(
        {
          context: project,
          mode: 'production',
          entry: './src/page.js',
          output: { path: out, filename: 'page.js', publicPath: 'auto' },
          // minifying the tokenizer tables is most of webpack's time, and not what is tested
          optimization: { minimize: false },
        },
        (err, s) => (err ? reject(err) : resolve(s)),
      )
    )
    if (stats?.hasErrors() === true) throw new Error(stats.toString('errors-only'))
    writeFileSync(join(out, 'index.html'), html('page.js'))
  },
}

/** Rollup: the worker is a second input, and the page says where it is. */
export const rollup: Bundler = {
  name: 'Rollup, worker as a second input',
  page: 'page-host',
  bundle: async (project, out) => {
    const { rollup: rollupBuild } = await import('rollup')
    const { nodeResolve } = await import('@rollup/plugin-node-resolve')
    // the package's types describe its CommonJS shape: the default export is the plugin either way
    const cjs = (await import('@rollup/plugin-commonjs')) as unknown as { default: () => import('rollup').Plugin }
    const commonjs = cjs.default
    const b = await rollupBuild({
      input: { 'page-host': join(project, 'src', 'page-host.js'), 'engine.worker': 'chatfold/worker' },
      plugins: [nodeResolve({ browser: true, rootDir: project }), commonjs()],
      onwarn: () => undefined,
    })
    await b.write({ dir: out, format: 'es', entryFileNames: '[name].js' })
    await b.close()
    writeFileSync(join(out, 'index.html'), html('page-host.js'))
  },
}

/** `deno bundle` (esbuild inside): like esbuild alone, the worker as a second entry. */
export const deno: Bundler = {
  name: 'deno bundle, worker as a second entry',
  page: 'page-host',
  bundle: async (project, out) => {
    const bin = join(root, 'node_modules', '.bin', 'deno')
    const entries = [
      ['src/page-host.js', 'page-host.js'],
      ['node_modules/chatfold/dist/workers/engine.worker.js', 'engine.worker.js'],
    ] as const
    for (const [entry, file] of entries) {
      const run = spawnSync(bin, ['bundle', '--quiet', '--platform', 'browser', '--output', join(out, file), entry], {
        cwd: project,
        encoding: 'utf8',
        env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' },
      })
      if (run.status !== 0) throw new Error(`deno bundle ${entry} failed (exit ${run.status ?? run.signal}): ${run.stderr}`)
    }
    writeFileSync(join(out, 'index.html'), html('page-host.js'))
  },
}
