import { defineConfig } from 'vitest/config'

// Two Node projects: fast unit tests and property tests (fast-check) apart, so either can run alone
// (`vitest run --project unit`). Runtime-specific suites (browser, workerd, Deno) have their own runners.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.prop.test.ts', 'test/runtime/**'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'prop',
          include: ['test/**/*.prop.test.ts'],
          environment: 'node',
        },
      },
    ],
  },
})
