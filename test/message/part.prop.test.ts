import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { file, finish, image, reasoning, text, toolCall, toolResult } from '../../src/message/part-make.ts'
import { decodePart, encodePart, marshalParts, unmarshalParts } from '../../src/message/part-registry.ts'
import { partArb } from '../support/arbitraries.ts'

describe('part laws', () => {
  it('decode ∘ encode = identity, also through JSON text', () => {
    fc.assert(
      fc.property(partArb, (p) => {
        expect(decodePart(encodePart(p))).toEqual(E.right(p))
        expect(decodePart(JSON.parse(JSON.stringify(encodePart(p))))).toEqual(E.right(p))
      }),
      { numRuns: 300 },
    )
  })

  it('marshal/unmarshal round-trips lists of parts', () => {
    fc.assert(fc.property(fc.array(partArb, { maxLength: 6 }), (ps) => void expect(unmarshalParts(marshalParts(ps))).toEqual(E.right(ps))), { numRuns: 150 })
  })

  it('constructors never produce what the decoder rejects', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.uint8Array({ maxLength: 16 }), fc.boolean(), (s, id, bytes, b) => {
        const made = [
          text(s),
          reasoning(s, { signature: id, redacted: b }),
          image({ url: s }),
          image({ data: bytes, mediaType: 'image/png' }),
          file({ data: bytes, mediaType: 'audio/wav' }),
          toolCall({ id, name: s, arguments: s }),
          toolResult({ toolCallId: id, content: s, isError: b }),
          finish(s),
        ]
        for (const p of made) expect(E.isRight(decodePart(encodePart(p)))).toBe(true)
      }),
      { numRuns: 150 },
    )
  })
})

describe('custom part laws', () => {
  it('a registered custom part round-trips like a built-in one, mixed with built-ins', async () => {
    const t = await import('io-ts')
    const { registerPart } = await import('../../src/message/part-registry.ts')
    const AudioC = t.readonly(t.exact(t.type({ type: t.literal('audio'), url: t.string, durationMs: t.number })))
    const unregister = registerPart({ type: 'audio', codec: AudioC })
    try {
      const audioArb = fc.record({ type: fc.constant('audio' as const), url: fc.webUrl(), durationMs: fc.nat() })
      fc.assert(
        fc.property(fc.array(fc.oneof(partArb, audioArb), { maxLength: 5 }), (ps) => {
          expect(unmarshalParts(marshalParts(ps as never))).toEqual(E.right(ps))
        }),
        { numRuns: 100 },
      )
    } finally {
      unregister()
    }
  })
})
