import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { describe, expect, it } from 'vitest'
import { checkRequest } from '../../src/adapters/rules.ts'
import { fromLanguageModelPrompt, type LanguageModelPrompt, toLanguageModelPrompt } from '../../src/ai-sdk/prompt.ts'

type Msg = LanguageModelPrompt[number]
type UserPart = Extract<Msg, { role: 'user' }>['content'][number]

// not blank: a prompt whose only text is blank is no valid request (providers refuse blank text
// blocks, and an assistant turn left with its reasoning alone is refused before it is sent)
const text = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim() !== '')
type ToolOutput = Extract<Extract<Msg, { role: 'tool' }>['content'][number], { type: 'tool-result' }>['output']
type Json = Extract<ToolOutput, { type: 'json' }>['value']
/** JSON as it travels (no -0, which JSON text cannot carry). */
const json: fc.Arbitrary<Json> = fc.jsonValue({ maxDepth: 2 }).map((v): Json => JSON.parse(JSON.stringify(v)))
/** Provider options under keys no reader takes for a signature (those are the adapters' own tests). */
const options = fc.option(fc.record({ custom: fc.dictionary(fc.constantFrom('a', 'b', 'cacheControl'), fc.oneof(fc.string(), fc.integer(), fc.boolean())) }), {
  nil: undefined,
})
const withOptions = <T extends object>(
  part: T,
  o: Record<string, Record<string, unknown>> | undefined,
): T => (o === undefined ? part : { ...part, providerOptions: o })

const bytes = fc.uint8Array({ minLength: 1, maxLength: 12 })
const filePart: fc.Arbitrary<UserPart> = fc
  .tuple(
    fc.oneof(bytes, bytes.map((b) => btoa(String.fromCharCode(...b))), /* base64 as encoders write it */ fc.webUrl().map((u) => new URL(u))),
    fc.constantFrom('image/png', 'application/pdf', 'text/plain'),
    fc.option(fc.constantFrom('a.pdf', 'notes.txt'), { nil: undefined }),
    fc.option(fc.webUrl(), { nil: undefined }),
    options,
  )
  .map(([data, mediaType, filename, originalUrl, o]) =>
    withOptions({
      type: 'file' as const,
      data,
      mediaType,
      ...(filename === undefined ? {} : { filename }),
      ...(originalUrl === undefined ? {} : { originalUrl }),
    }, o)
  )
const textPart = fc.tuple(text, options).map(([t, o]) => withOptions({ type: 'text' as const, text: t }, o))

const output = fc.oneof(
  text.map((value) => ({ type: 'text' as const, value })),
  text.map((value) => ({ type: 'error-text' as const, value })),
  json.map((value) => ({ type: 'json' as const, value })),
  json.map((value) => ({ type: 'error-json' as const, value })),
  fc.option(text, { nil: undefined }).map((reason) => ({ type: 'execution-denied' as const, ...(reason === undefined ? {} : { reason }) })),
  fc.array(text, { minLength: 1, maxLength: 2 }).map((ts) => ({ type: 'content' as const, value: ts.map((t) => ({ type: 'text' as const, text: t })) })),
)

/** One round: an assistant message (text, reasoning, calls) and the tool message answering its calls. */
const round = (n: number): fc.Arbitrary<Msg[]> =>
  fc.tuple(
    fc.option(textPart, { nil: undefined }),
    fc.option(text, { nil: undefined }),
    fc.array(fc.tuple(json.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v)), output, options), { maxLength: 3 }),
    options,
  ).map(([t, reasoning, calls, o]) => {
    const assistant: Msg = withOptions(
      {
        role: 'assistant' as const,
        content: [
          ...(reasoning === undefined ? [] : [{ type: 'reasoning' as const, text: reasoning }]),
          ...(t === undefined && calls.length === 0 ? [{ type: 'text' as const, text: 'done' }] : t === undefined ? [] : [t]),
          ...calls.map(([input, , co], i) => withOptions({ type: 'tool-call' as const, toolCallId: `c${n}_${i}`, toolName: `tool${i}`, input }, co)),
        ],
      },
      o,
    )
    const results = calls.map(([, out], i) => ({ type: 'tool-result' as const, toolCallId: `c${n}_${i}`, toolName: `tool${i}`, output: out }))
    return results.length === 0 ? [assistant] : [assistant, { role: 'tool' as const, content: results }]
  })

const user = fc.tuple(fc.array(fc.oneof(textPart, filePart), { minLength: 1, maxLength: 3 }), options).map(([content, o]): Msg =>
  withOptions({ role: 'user' as const, content }, o)
)

const prompt: fc.Arbitrary<LanguageModelPrompt> = fc
  .tuple(fc.option(text, { nil: undefined }), fc.array(fc.tuple(user, fc.nat(3)), { minLength: 1, maxLength: 4 }))
  .chain(([system, turns]) =>
    fc.tuple(...turns.map(([u, rounds], t) => fc.tuple(...Array.from({ length: rounds }, (_, r) => round(t * 10 + r))).map((rs) => [u, ...rs.flat()]))).map((
      ts,
    ) => [
      ...(system === undefined ? [] : [{ role: 'system' as const, content: system }]),
      ...ts.flat(),
    ])
  )

describe('the language-model prompt, as a law', () => {
  it('toLanguageModelPrompt ∘ fromLanguageModelPrompt gives every prompt back as it came, one message a message', () => {
    fc.assert(
      fc.property(prompt, (p) => {
        const ms = fromLanguageModelPrompt(p)
        if (E.isLeft(ms)) throw new Error(JSON.stringify(ms.left))
        expect(ms.right).toHaveLength(p.length)
        const back = toLanguageModelPrompt()(ms.right)
        if (E.isLeft(back)) throw new Error(JSON.stringify(back.left))
        expect(back.right.request).toEqual(p)
        // URLs stay URLs (toEqual sees no difference between two URL objects)
        expect(JSON.stringify(back.right.request)).toBe(JSON.stringify(p))
        expect(checkRequest('ai-sdk')({ messages: back.right.request })).toEqual([])
      }),
      { numRuns: 300 },
    )
  })
})
