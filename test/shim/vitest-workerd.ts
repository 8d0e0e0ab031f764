/**
 * vitest's `expect` for code bundled into workerd (no Node APIs there, so neither vitest nor Jest's
 * `expect` loads): the same matchers, from `@vitest/expect` over chai, with no test runner's state.
 * Bundles that run test support code in workerd alias "vitest" here.
 */
import { chai, JestAsymmetricMatchers, JestChaiExpect, JestExtend } from '@vitest/expect'

chai.use(JestExtend)
chai.use(JestChaiExpect)
chai.use(JestAsymmetricMatchers)

/** `expect(value, message?)` with vitest's matchers (`toEqual`, `toMatchObject`, `rejects`, …). */
export const expect = Object.assign((value: unknown, message?: string) => chai.expect(value, message), chai.expect)
