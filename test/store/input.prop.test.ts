/**
 * `validateInput` has a fast path for valid inputs (the codec's checks, written out, returning the
 * input itself) and a slow path through `ChatInputC`. These laws hold the two to one meaning: over
 * generated inputs, valid and invalid field by field, `validateInput` accepts exactly what the
 * codec accepts with no unknown field, gives the codec's value, and returns the input itself
 * exactly when the codec would take it unchanged.
 */
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { ChatInputC, validateInput } from '../../src/store/input.ts'
import { jsonArb } from '../support/arbitraries.ts'

const FIELDS: ReadonlyArray<string> = ['modality_type', 'timestamp', 'input_id', 'role', 'content', 'message_id', 'conversation_id', 'metadata']

/** The codec alone: its decoded value, or `undefined` when it refuses `u` or `u` has an unknown field. */
const byCodec = (u: unknown): unknown => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return undefined
  const r = ChatInputC.decode(u)
  if (E.isLeft(r) || Object.keys(u).some((k) => !FIELDS.includes(k))) return undefined
  return r.right
}

const ABSENT = Symbol('absent')

/**
 * A field's value: mostly valid, sometimes invalid, sometimes absent (often, when optional); an
 * optional field is also present as `undefined`, which the codec's `t.partial` accepts.
 */
const field = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>, optional: boolean): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: valid, weight: 6 },
    { arbitrary: invalid, weight: 2 },
    { arbitrary: fc.constant(ABSENT), weight: optional ? 4 : 1 },
    { arbitrary: fc.constant(undefined), weight: optional ? 2 : 0 },
  )

const idArb = fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,12}$/), fc.constantFrom('x'.repeat(256), 'é', 'a b'))
const badIdArb = fc.constantFrom('', 'x'.repeat(257), 'tab\there', 'nul\u0000', 'del\u007f', 42, null, undefined, [], {})

const timestampArb = fc.constantFrom('2024-03-15T10:30:00Z', '2024-03-15T10:30:00.123+01:00', '2024-02-29T23:59:59.000000500Z')
const badTimestampArb = fc.constantFrom(
  '2024-13-01T00:00:00Z',
  '2023-02-29T10:00:00Z',
  '2024-03-15',
  '2024-03-15T10:30:00',
  'yesterday',
  '',
  0,
  null,
  undefined,
)

const base64Arb = fc.constantFrom('', 'aGk=', 'AAAA', 'aGVsbG8=')
const blockArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 8 }) }),
  fc.record({ type: fc.constantFrom('image', 'audio', 'video'), source: fc.constant('url'), url: fc.string({ maxLength: 8 }) }),
  fc.record(
    { type: fc.constantFrom('image', 'audio', 'video'), source: fc.constant('base64'), data: base64Arb, media_type: fc.constantFrom('image/png', 'audio/wav') },
    { requiredKeys: ['type', 'source', 'data'] },
  ),
)
// a well-formed block with a field the codec does not know: accepted, the field dropped
const blockWithExtraArb: fc.Arbitrary<unknown> = blockArb.map((b) => ({ ...(b as object), extra: 1 }))
const badBlockArb: fc.Arbitrary<unknown> = fc.constantFrom(
  { type: 'text' },
  { type: 'text', text: 1 },
  { type: 'image', source: 'file', url: 'a' },
  { type: 'image', source: 'url' },
  { type: 'audio', source: 'base64', data: '@@' },
  { type: 'video', source: 'base64', data: 'aGk=', media_type: 3 },
  { type: 'html', text: 'x' },
  'text',
  null,
)
const contentArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.array(fc.oneof({ arbitrary: blockArb, weight: 3 }, { arbitrary: blockWithExtraArb, weight: 1 }), { minLength: 1, maxLength: 3 }),
)
const badContentArb = fc.oneof(
  fc.constantFrom('', [], 42, null, { type: 'text', text: 'x' }),
  fc.tuple(fc.array(blockArb, { maxLength: 2 }), badBlockArb, fc.array(blockArb, { maxLength: 2 })).map(([a, b, c]) => [...a, b, ...c]),
  // a sparse list: a hole where a block should be
  blockArb.map((b) => {
    const holes: unknown[] = new Array(2)
    holes[1] = b
    return holes
  }),
)

const metadataArb = fc.dictionary(fc.string({ maxLength: 6 }), jsonArb, { maxKeys: 3 })
const badMetadataArb = fc.constantFrom<unknown>({ n: Number.NaN }, { u: undefined }, { d: new Date(0) }, { f: () => 1 }, [], 'meta', null, 1)

const extraArb = fc.constantFrom('extra', 'Content', 'messageId', 'constructor', '__proto__', 'toString')

/** Inputs, each field valid, invalid or absent, sometimes with an unknown field; and a few non-objects. */
const inputArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 20,
    arbitrary: fc
      .record({
        modality_type: field(fc.constant('chat'), fc.constantFrom('Chat', 'image', '', null), false),
        timestamp: field(timestampArb, badTimestampArb, false),
        input_id: field(idArb, badIdArb, false),
        role: field(fc.constantFrom('user', 'assistant'), fc.constantFrom('system', 'tool', 'bot', '', null), false),
        content: field(contentArb, badContentArb, false),
        message_id: field(idArb, badIdArb, true),
        conversation_id: field(idArb, badIdArb, true),
        metadata: field(metadataArb, badMetadataArb, true),
        extra: fc.option(fc.tuple(extraArb, jsonArb), { freq: 4, nil: undefined }),
      })
      .map(({ extra, ...fields }) => {
        const u: Record<string, unknown> = {}
        for (const [k, v] of Object.entries(fields)) if (v !== ABSENT) u[k] = v
        // an own data property, even for `__proto__`
        if (extra !== undefined) Object.defineProperty(u, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true })
        return u
      }),
  },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) },
)

describe('validateInput and ChatInputC agree', () => {
  it('the codec always decodes to a copy, so an input returned as itself came through the fast path', () => {
    fc.assert(
      fc.property(inputArb, (u) => {
        const r = ChatInputC.decode(u)
        return E.isLeft(r) || r.right !== u
      }),
      { numRuns: 300 },
    )
  })

  it('accepts exactly what the codec accepts with no unknown field, with the codec’s value', () => {
    fc.assert(
      fc.property(inputArb, (u) => {
        const expected = byCodec(u)
        const r = validateInput(u)
        expect(E.isRight(r)).toBe(expected !== undefined)
        if (E.isRight(r)) expect(r.right).toStrictEqual(expected)
      }),
      { numRuns: 1000 },
    )
  })

  it('returns the input itself exactly when the codec takes it unchanged', () => {
    fc.assert(
      fc.property(inputArb, (u) => {
        const expected = byCodec(u)
        const r = validateInput(u)
        expect(E.isRight(r) && r.right === u).toBe(expected !== undefined && isDeepStrictEqual(expected, u))
      }),
      { numRuns: 1000 },
    )
  })

  it('the generated inputs reach both sides: fast-path accepts, codec-only accepts and refusals', () => {
    const seen = { fast: 0, slow: 0, refused: 0 }
    fc.assert(
      fc.property(inputArb, (u) => {
        const r = validateInput(u)
        if (E.isLeft(r)) seen.refused++
        else if (r.right === u) seen.fast++
        else seen.slow++
      }),
      { numRuns: 1000 },
    )
    expect(seen.fast).toBeGreaterThan(0)
    expect(seen.slow).toBeGreaterThan(0)
    expect(seen.refused).toBeGreaterThan(0)
  })
})
