import { defineConfig } from 'vitest/config'
import { playwright } from '@vitest/browser-playwright'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium.ts'

// Projects, each runnable alone (`vitest run --project unit`):
// - unit, prop: Node, the whole suite (property tests apart, so either can run alone);
// - browser: a small set of files in headless Chromium (the engine contract in a real Web Worker,
//   and a smoke test of the core), with Debian's chromium, never a downloaded browser;
// - deploy: the chat store served by chatfold serve, workerd serve and deno serve, killed and restarted;
// - dist: the built package as npm users get it (run after `npm run build`);
// - bundlers: the built package under each bundler, and the explorer page, in Chromium.
// Deno and workerd have their own runners (`deno test`, scripts/workerd-test.ts).

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.prop.test.ts', 'test/runtime/**', 'test/dist/**', 'test/bundlers/**', 'test/web/**', 'test/deploy/**', 'test/consumer/**'],
          environment: 'node',
          // The files of a worker share their modules: importing the sources (and the tokenizer's
          // tables) once per worker rather than once per file takes the unit and property tests from
          // about 4 minutes to 2. The core holds no state but caches and the part registry, and the
          // tests that register a part or replace a global undo it.
          isolate: false,
          // two files at a time on a two-core machine (vitest's default, one fewer than the cores, is one)
          maxWorkers: 2,
          // the limit only stops a hang: a busy machine takes longer than vitest's 5 s over some
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'prop',
          include: ['test/**/*.prop.test.ts'],
          exclude: ['test/runtime/**', 'test/dist/**', 'test/bundlers/**', 'test/web/**', 'test/deploy/**', 'test/consumer/**'],
          environment: 'node',
          // a property runs its cases to the end however long a busy machine takes over them: the
          // limit only stops a hang (vitest's 5 s cut three of them short beside other runs)
          testTimeout: 60_000,
          isolate: false, // as the unit tests
          maxWorkers: 2,
        },
      },
      {
        // the AI SDK's tests again with `ai` 7 (the `ai-v7` alias) in place of `ai` 6: the middleware,
        // prepareStep, persistence and the summariser under the other major the peer range allows
        resolve: { alias: [{ find: /^ai$/, replacement: 'ai-v7' }, { find: /^ai\/test$/, replacement: 'ai-v7/test' }] },
        test: {
          name: 'ai7',
          include: ['test/ai-sdk/**/*.test.ts', 'test/adapters/ai-sdk/**/*.test.ts', 'test/adapters/sdk.test.ts', 'test/summarize/summarize.test.ts', 'test/cost/call-cost.test.ts'],
          exclude: ['test/ai-sdk/middleware-v7.test.ts', 'test/**/*.prop.test.ts'],
          environment: 'node',
          isolate: false, // as the unit tests
          maxWorkers: 2,
          testTimeout: 60_000,
        },
      },
      {
        // pre-bundled up front: a dependency discovered mid-run makes Vite reload the page
        optimizeDeps: { include: ['comlink', 'fast-check', 'io-ts', 'gpt-tokenizer/encoding/o200k_base', 'gpt-tokenizer/encoding/cl100k_base', 'gpt-tokenizer/bpeRanks/o200k_base', 'gpt-tokenizer/bpeRanks/cl100k_base', 'gpt-tokenizer/encodingParams/constants'] },
        test: {
          name: 'browser',
          include: ['test/engine/engine.test.ts', 'test/runtime/browser/**/*.test.ts'],
          testTimeout: 30_000,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] } }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        // the chat store served for real (chatfold serve, workerd serve, deno serve), killed and
        // restarted: child processes on 127.0.0.1, two files at a time (a file waits on its servers
        // more than it computes: on two cores the run takes half as long as one file at a time)
        test: {
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          environment: 'node',
          maxWorkers: 2,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'dist',
          include: ['test/dist/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // the built package bundled by Vite, webpack, esbuild, Rollup and deno, opened in Chromium
        // (playwright-core with Debian's chromium); the explorer page, driven the same way
        test: {
          name: 'bundlers',
          include: ['test/bundlers/**/*.test.ts', 'test/web/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // the packed package in fresh projects, installed as the guides say (npm and pnpm) and running
        // the guides' code; reads dist/ (run after `npm run build`); installs a few at a time
        test: {
          name: 'consumer',
          include: ['test/consumer/**/*.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
})
