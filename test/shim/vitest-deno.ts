/**
 * A small stand-in for the parts of vitest's API that chatfold's tests use, so the very same test
 * files run under `deno test` (deno.json maps "vitest" here). Supported: describe/it/test (with
 * .each, .skip, .only as a plain run, .todo, .skipIf, .runIf), beforeAll/afterAll/beforeEach/afterEach,
 * `expect` (Jest's matchers from npm), `vi.fn`, and `expectTypeOf` as a no-op (types are checked by tsc).
 */
import { expect as jestExpect } from 'expect'

/** vitest's `expect` takes a message as its second argument, which Jest's refuses: it is dropped here. */
export const expect = Object.assign((actual: unknown, _message?: string) => jestExpect(actual), jestExpect) as typeof jestExpect

declare const Deno: {
  test(def: { name: string; ignore: boolean; sanitizeOps: boolean; sanitizeResources: boolean; fn: () => Promise<void> }): void
}

type Fn = () => unknown | Promise<unknown>
type Scope = {
  readonly name: string
  readonly parent: Scope | undefined
  readonly beforeAll: Fn[]
  readonly afterAll: Fn[]
  readonly beforeEach: Fn[]
  readonly afterEach: Fn[]
  leaves: number
  ran: number
  started: boolean
}

const mkScope = (name: string, parent: Scope | undefined): Scope => ({
  name,
  parent,
  beforeAll: [],
  afterAll: [],
  beforeEach: [],
  afterEach: [],
  leaves: 0,
  ran: 0,
  started: false,
})

const root = mkScope('', undefined)
let current = root

const chain = (s: Scope): Scope[] => {
  const out: Scope[] = []
  for (let x: Scope | undefined = s; x !== undefined; x = x.parent) out.unshift(x)
  return out
}

const fullName = (s: Scope, name: string) => [...chain(s).map((x) => x.name).filter((n) => n !== ''), name].join(' > ')

const format = (template: string, args: unknown, index: number): string => {
  const list = Array.isArray(args) ? args : [args]
  let i = 0
  let out = template.replace(/%[sdifjo#%]/g, (m) => {
    if (m === '%%') return '%'
    if (m === '%#') return String(index)
    const v = list[i++]
    return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v)
  })
  if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
    out = out.replace(/\$([A-Za-z_][\w.]*)/g, (_, k: string) => String((args as Record<string, unknown>)[k]))
  }
  return out
}

const register = (name: string, fn: ((...a: unknown[]) => unknown) | undefined, ignore: boolean, args: unknown[] = []) => {
  const scope = current
  const scopes = chain(scope)
  for (const s of scopes) s.leaves++
  Deno.test({
    name: fullName(scope, name),
    ignore: ignore || fn === undefined,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      for (const s of scopes) {
        if (!s.started) {
          s.started = true
          for (const h of s.beforeAll) await h()
        }
      }
      try {
        for (const s of scopes) for (const h of s.beforeEach) await h()
        await fn?.(...args)
      } finally {
        for (const s of [...scopes].reverse()) for (const h of s.afterEach) await h()
        for (const s of [...scopes].reverse()) {
          s.ran++
          if (s.ran === s.leaves) { for (const h of s.afterAll) await h() }
        }
      }
    },
  })
}

type TestFn = {
  (name: string, fn?: (...a: never[]) => unknown, timeout?: number): void
  skip: (name: string, fn?: (...a: never[]) => unknown) => void
  only: (name: string, fn?: (...a: never[]) => unknown) => void
  todo: (name: string) => void
  skipIf: (cond: unknown) => (name: string, fn?: (...a: never[]) => unknown) => void
  runIf: (cond: unknown) => (name: string, fn?: (...a: never[]) => unknown) => void
  each: (table: ReadonlyArray<unknown>) => (name: string, fn: (...a: never[]) => unknown) => void
}

const makeTest = (): TestFn => {
  const t = ((name: string, fn?: (...a: never[]) => unknown) => register(name, fn as never, false)) as TestFn
  t.skip = (name, fn) => register(name, fn as never, true)
  t.only = (name, fn) => register(name, fn as never, false)
  t.todo = (name) => register(name, undefined, true)
  t.skipIf = (cond) => (name, fn) => register(name, fn as never, Boolean(cond))
  t.runIf = (cond) => (name, fn) => register(name, fn as never, !cond)
  t.each = (table) => (name, fn) => table.forEach((row, i) => register(format(name, row, i), fn as never, false, Array.isArray(row) ? row : [row]))
  return t
}

export const it = makeTest()
export const test = it

type DescribeFn = {
  (name: string, fn: () => void): void
  skip: (name: string, fn: () => void) => void
  only: (name: string, fn: () => void) => void
  skipIf: (cond: unknown) => (name: string, fn: () => void) => void
  runIf: (cond: unknown) => (name: string, fn: () => void) => void
  each: (table: ReadonlyArray<unknown>) => (name: string, fn: (...a: never[]) => void) => void
}

const runScope = (name: string, fn: () => void) => {
  const parent = current
  current = mkScope(name, parent)
  try {
    fn()
  } finally {
    current = parent
  }
}

// vitest takes `describe(name, fn)`, `describe(name, options, fn)` and `describe(name, fn, options)`
export const describe = ((name: string, a: unknown, b?: unknown) => runScope(name, (typeof a === 'function' ? a : b) as () => void)) as DescribeFn
describe.skip = (name) => register(name, undefined, true)
describe.only = (name, fn) => runScope(name, fn)
describe.skipIf = (cond) => (name, fn) => (cond ? register(name, undefined, true) : runScope(name, fn))
describe.runIf = (cond) => (name, fn) => (cond ? runScope(name, fn) : register(name, undefined, true))
describe.each = (table) => (name, fn) =>
  table.forEach((row, i) => runScope(format(name, row, i), () => (fn as (...a: unknown[]) => void)(...(Array.isArray(row) ? row : [row]))))

export const beforeAll = (fn: Fn) => void current.beforeAll.push(fn)
export const afterAll = (fn: Fn) => void current.afterAll.push(fn)
export const beforeEach = (fn: Fn) => void current.beforeEach.push(fn)
export const afterEach = (fn: Fn) => void current.afterEach.push(fn)

type Mock = ((...args: unknown[]) => unknown) & {
  mock: { calls: unknown[][]; results: { type: string; value: unknown }[] }
  _isMockFunction: true
  getMockName: () => string
  mockImplementation: (f: (...args: unknown[]) => unknown) => Mock
}

export const vi = {
  fn: (impl: (...args: never[]) => unknown = () => undefined): Mock => {
    let f = impl as (...args: unknown[]) => unknown
    const m = ((...args: unknown[]) => {
      m.mock.calls.push(args)
      const value = f(...args)
      m.mock.results.push({ type: 'return', value })
      return value
    }) as Mock
    m.mock = { calls: [], results: [] }
    m._isMockFunction = true
    m.getMockName = () => 'vi.fn()'
    m.mockImplementation = (g) => {
      f = g
      return m
    }
    return m
  },
}

const noop: unknown = new Proxy(() => noop, { get: () => noop, apply: () => noop })
export const expectTypeOf = noop as (...a: unknown[]) => never
