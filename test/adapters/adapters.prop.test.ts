import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { fromModelMessages } from '../../src/adapters/ai-sdk/model-messages-from.ts'
import { toModelMessages } from '../../src/adapters/ai-sdk/model-messages.ts'
import { fromAnthropic } from '../../src/adapters/anthropic/messages-from.ts'
import { toAnthropic } from '../../src/adapters/anthropic/messages.ts'
import { fromGemini } from '../../src/adapters/gemini/contents-from.ts'
import { toGemini } from '../../src/adapters/gemini/contents.ts'
import { fromOpenAIChat } from '../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import type { Message, Messages } from '../../src/message/message.ts'
import type { Part } from '../../src/message/part-model.ts'
import { validateToolPairs } from '../../src/history/pairs.ts'
import { conversationArb, deepFreeze, messagesArb } from '../support/arbitraries.ts'
import { withoutIds } from './support.ts'

const RUNS = { numRuns: 150 }

// --- representable histories ---

type Profile = {
  readonly provider?: string
  readonly system: fc.Arbitrary<ReadonlyArray<Part>>
  readonly user: fc.Arbitrary<ReadonlyArray<Part>>
  /** Assistant content; `call` entries are replaced by tool calls with fresh ids. */
  readonly assistant: fc.Arbitrary<ReadonlyArray<Part | 'call'>>
  readonly args: fc.Arbitrary<string>
  readonly isError: fc.Arbitrary<boolean>
  /** One tool message a turn holding every result, instead of one a result. */
  readonly batchResults?: boolean
}

const nameArb = fc.constantFrom('read', 'grep', 'bash', 'get_weather')
const bytesArb = fc.uint8Array({ minLength: 1, maxLength: 24 })
const pngArb = bytesArb.map((b) => new Uint8Array([0x89, 0x50, 0x4e, 0x47, ...b]))
const objectArgs = fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }).map((o) => JSON.stringify(o))
/** A reasoning item token; ids long enough that two items never share one (parts of one id are one item). */
const token = fc.tuple(fc.stringMatching(/^rs_[a-z0-9]{12}$/), fc.option(fc.base64String({ minLength: 4, maxLength: 16 }), { nil: undefined })).map((
  [id, enc],
) => JSON.stringify(enc === undefined ? { id } : { id, encrypted_content: enc }))

/** system, then turns of: a user message, an assistant message, the tool results of its calls. */
const historyArb = (p: Profile): fc.Arbitrary<Messages> =>
  fc
    .tuple(
      fc.option(p.system, { nil: undefined }),
      fc.array(fc.tuple(p.user, p.assistant, fc.array(fc.tuple(nameArb, p.args, p.isError), { maxLength: 3 })), { minLength: 1, maxLength: 4 }),
    )
    .map(([system, turns]) => {
      const out: Message[] = []
      let n = 0
      const add = (role: Message['role'], parts: ReadonlyArray<Part>, extra: Partial<Message> = {}): void => {
        out.push({ id: `m${n++}`, role, kind: 'normal', parts, ...extra })
      }
      if (system !== undefined) add('system', system)
      turns.forEach(([user, content, calls], t) => {
        add('user', user)
        let k = 0
        const made: Array<{ id: string; name: string; isError: boolean }> = []
        const parts = content.map((c): Part => {
          if (c !== 'call') return c
          const [name, args, isError] = calls[k % Math.max(calls.length, 1)] ?? ['read', '{}', false]
          const id = `c${t}_${k++}`
          made.push({ id, name, isError })
          return { type: 'tool_call', id, name, arguments: args, status: isError ? 'error' : 'complete' }
        })
        add('assistant', parts, p.provider === undefined ? {} : { provider: p.provider })
        const results = made.map((c): Part => ({ type: 'tool_result', toolCallId: c.id, name: c.name, content: `out ${c.id}`, isError: c.isError }))
        if (p.batchResults === true) {
          if (results.length > 0) add('tool', results)
        } else for (const r of results) add('tool', [r])
      })
      return deepFreeze(out)
    })

const text = (min = 0) => fc.string({ minLength: min, maxLength: 12 }).map((t): Part => ({ type: 'text', text: t }))
/** Assistant content that says something (so never reasoning-only), with tool calls among it. */
const said = (parts: fc.Arbitrary<Part | 'call'>, anchor: fc.Arbitrary<Part>) =>
  fc.tuple(fc.array(parts, { maxLength: 4 }), anchor).map((
    [ps, a],
  ) => (ps.some((p) => p === 'call' || (p.type === 'text' && p.text.trim() !== '')) ? ps : [...ps, a]))
const nonBlank = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '').map((t): Part => ({ type: 'text', text: t }))
/** Non-blank text with no whitespace at its end (what a final Anthropic assistant turn keeps). */
const trimmed = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '').map((t): Part => ({ type: 'text', text: t.trimEnd() }))

const profiles: ReadonlyArray<{
  readonly name: string
  readonly profile: Profile
  readonly roundTrip: (h: Messages) => E.Either<unknown, Messages>
}> = [
  {
    name: 'OpenAI Chat Completions',
    profile: {
      provider: 'openai',
      system: fc.array(text(), { minLength: 1, maxLength: 2 }),
      user: fc.array(
        fc.oneof(
          text(),
          pngArb.map((data): Part => ({ type: 'image', data, mediaType: 'image/png' })),
          fc.webUrl().map((url): Part => ({ type: 'image', url })),
          fc.tuple(bytesArb, fc.constantFrom('audio/wav', 'audio/mpeg')).map(([data, mediaType]): Part => ({ type: 'file', data, mediaType })),
          // a file by bytes goes out with a filename (made up from its media type when it has none: rules.test.ts)
          fc.tuple(bytesArb, fc.string({ minLength: 1, maxLength: 8 })).map(([data, filename]): Part => ({
            type: 'file',
            data,
            mediaType: 'application/pdf',
            filename,
          })),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      // Chat Completions puts the text first and the tool calls after it
      assistant: said(fc.oneof(text(), fc.constant('call' as const)), nonBlank).map((
        ps,
      ) => [...ps.filter((p) => p !== 'call'), ...ps.filter((p) => p === 'call')]),
      args: fc.string({ maxLength: 16 }),
      isError: fc.constant(false),
    },
    roundTrip: (h) => E.chainW((r: { readonly request: unknown }) => fromOpenAIChat(r.request))(toOpenAIChat()(h)),
  },
  {
    name: 'OpenAI Responses',
    profile: {
      provider: 'openai',
      system: fc.array(text(), { minLength: 1, maxLength: 2 }),
      user: fc.array(
        fc.oneof(
          text(),
          pngArb.map((data): Part => ({ type: 'image', data, mediaType: 'image/png' })),
          fc.webUrl().map((url): Part => ({ type: 'image', url })),
          // a file by bytes goes out with a filename (made up from its media type when it has none: rules.test.ts)
          fc.tuple(bytesArb, fc.string({ minLength: 1, maxLength: 8 })).map(([data, filename]): Part => ({
            type: 'file',
            data,
            mediaType: 'application/pdf',
            filename,
          })),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      assistant: said(
        fc.oneof(
          text(),
          fc.constant('call' as const),
          fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), token).map(([t, signature]): Part => ({ type: 'reasoning', text: t, signature })),
          token.map((t): Part => ({ type: 'reasoning', text: t, redacted: true })),
        ),
        nonBlank,
      ),
      args: fc.string({ maxLength: 16 }),
      isError: fc.constant(false),
    },
    roundTrip: (h) => E.chainW((r: { readonly request: unknown }) => fromOpenAIResponses(r.request))(toOpenAIResponses()(h)),
  },
  {
    name: 'Anthropic Messages',
    profile: {
      provider: 'anthropic',
      system: fc.array(nonBlank, { minLength: 1, maxLength: 2 }),
      // blank texts are dropped by Anthropic's rules (rules.test.ts): not representable
      user: fc.array(
        fc.oneof(
          nonBlank,
          fc.tuple(bytesArb, fc.constantFrom('image/png', 'image/jpeg', 'image/gif', 'image/webp')).map(([data, mediaType]): Part => ({
            type: 'image',
            data,
            mediaType,
          })),
          fc.webUrl().map((url): Part => ({ type: 'image', url })),
          fc.tuple(bytesArb, fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined })).map(([data, filename]): Part => ({
            type: 'file',
            data,
            mediaType: 'application/pdf',
            ...(filename === undefined ? {} : { filename }),
          })),
          fc.string({ maxLength: 12 }).map((s): Part => ({ type: 'file', data: new TextEncoder().encode(s), mediaType: 'text/plain' })),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      // blank texts are dropped and a final assistant text is trimmed at its end (rules.test.ts)
      assistant: said(
        fc.oneof(
          trimmed,
          fc.constant('call' as const),
          fc.tuple(fc.string({ maxLength: 12 }), fc.base64String({ minLength: 4, maxLength: 16 })).map(([t, signature]): Part => ({
            type: 'reasoning',
            text: t,
            signature,
          })),
          fc.base64String({ minLength: 4, maxLength: 16 }).map((t): Part => ({ type: 'reasoning', text: t, redacted: true })),
        ),
        trimmed,
      ),
      args: objectArgs,
      isError: fc.boolean(),
    },
    roundTrip: (h) => E.chainW((r: { readonly request: unknown }) => fromAnthropic(r.request))(toAnthropic()(h)),
  },
  {
    name: 'Gemini',
    profile: {
      provider: 'google',
      system: fc.array(text(1), { minLength: 1, maxLength: 2 }),
      // empty texts are dropped by Gemini's rules (rules.test.ts): not representable
      user: fc.array(
        fc.oneof(
          text(1),
          pngArb.map((data): Part => ({ type: 'image', data, mediaType: 'image/png' })),
          fc.tuple(fc.webUrl(), fc.constantFrom('image/jpeg', 'application/pdf')).map((
            [url, mediaType],
          ): Part => (mediaType === 'application/pdf' ? { type: 'file', url, mediaType } : { type: 'image', url, mediaType })),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      assistant: said(
        fc.oneof(
          text(1),
          fc.constant('call' as const),
          // an empty unsigned thought is dropped by Gemini's rules: not representable
          fc.string({ minLength: 1, maxLength: 12 }).map((t): Part => ({ type: 'reasoning', text: t })),
          fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.base64String({ minLength: 4, maxLength: 16 })).map(([t, signature]): Part => ({
            type: 'reasoning',
            text: t,
            signature,
          })),
          fc.base64String({ minLength: 4, maxLength: 16 }).map((t): Part => ({ type: 'reasoning', text: t, redacted: true })),
          pngArb.map((data): Part => ({ type: 'image', data, mediaType: 'image/png' })),
        ),
        nonBlank,
      ),
      args: objectArgs,
      isError: fc.boolean(),
    },
    roundTrip: (h) => E.chainW((r: { readonly request: unknown }) => fromGemini(r.request))(toGemini()(h)),
  },
  {
    name: 'AI SDK',
    profile: {
      system: text().map((p) => [p]),
      user: fc.array(
        fc.oneof(
          text(),
          fc.tuple(bytesArb, fc.option(fc.constantFrom('image/png', 'image/jpeg'), { nil: undefined })).map(([data, mediaType]): Part => ({
            type: 'image',
            data,
            ...(mediaType === undefined ? {} : { mediaType }),
          })),
          fc.webUrl().map((url): Part => ({ type: 'image', url })),
          fc.tuple(bytesArb, fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined })).map(([data, filename]): Part => ({
            type: 'file',
            data,
            mediaType: 'application/pdf',
            ...(filename === undefined ? {} : { filename }),
          })),
        ),
        { maxLength: 3 },
      ),
      assistant: said(
        fc.oneof(text(), fc.constant('call' as const), fc.string({ maxLength: 12 }).map((t): Part => ({ type: 'reasoning', text: t }))),
        nonBlank,
      ),
      args: fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
      isError: fc.boolean(),
      batchResults: true,
    },
    roundTrip: (h) => E.chainW((r: { readonly request: unknown }) => fromModelMessages(r.request))(toModelMessages()(h)),
  },
]

describe.each(profiles)('$name', ({ profile, roundTrip }) => {
  it('from(to(h)) equals h for every history it can represent (ids aside)', () => {
    fc.assert(
      fc.property(historyArb(profile), (h) => {
        const back = roundTrip(h)
        if (E.isLeft(back)) throw new Error(`round trip failed: ${JSON.stringify(back.left)}`)
        expect(withoutIds(back.right)).toEqual(withoutIds(h))
      }),
      RUNS,
    )
  })
})

// --- any history ---

const adapters = [
  { name: 'OpenAI Chat Completions', to: toOpenAIChat, from: fromOpenAIChat, provider: 'openai-chat', model: 'gpt-5' },
  { name: 'OpenAI Responses', to: toOpenAIResponses, from: fromOpenAIResponses, provider: 'openai-responses', model: 'gpt-5' },
  { name: 'Anthropic Messages', to: toAnthropic, from: fromAnthropic, provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { name: 'Gemini', to: toGemini, from: fromGemini, provider: 'gemini', model: 'gemini-3-pro-preview' },
  { name: 'AI SDK', to: toModelMessages, from: fromModelMessages, provider: 'ai-sdk', model: undefined },
] as const

describe.each(adapters)('$name with any history', ({ to, from, provider, model }) => {
  it('builds from any history (blank and empty texts, foreign signatures, several calls a turn) a request that satisfies checkRequest', () => {
    fc.assert(
      fc.property(messagesArb, fc.constantFrom<'drop' | 'text'>('drop', 'text'), (h, foreignReasoning) => {
        const options = { repair: 'repair' as const, foreignReasoning, ...(model === undefined ? {} : { model }) }
        const r = (to as (o: object) => (ms: Messages) => E.Either<unknown, { request: object }>)(options)(h)
        if (E.isLeft(r)) throw new Error(`conversion failed: ${JSON.stringify(r.left)}`)
        const request = provider === 'gemini' ? { model, ...r.right.request } : r.right.request
        expect(checkRequest(provider)(request)).toEqual([])
      }),
      RUNS,
    )
  })

  it('repairs any history into a request whose tool calls and results pair up, without touching the input', () => {
    fc.assert(
      fc.property(messagesArb, (h) => {
        const r = (to as (o: object) => (ms: Messages) => E.Either<unknown, { request: unknown }>)({ repair: 'repair', foreignReasoning: 'text' })(h)
        if (E.isLeft(r)) throw new Error(`conversion failed: ${JSON.stringify(r.left)}`)
        const back = (from as (u: unknown) => E.Either<unknown, Messages>)(r.right.request)
        if (E.isLeft(back)) throw new Error(`decoding failed: ${JSON.stringify(back.left)}`)
        expect(validateToolPairs(back.right).issues).toEqual([])
      }),
      RUNS,
    )
  })

  it('converts every valid conversation without repair', () => {
    fc.assert(
      fc.property(conversationArb, (h) => {
        const r = (to as (o: object) => (ms: Messages) => E.Either<unknown, unknown>)({})(h)
        expect(E.isRight(r)).toBe(true)
      }),
      RUNS,
    )
  })
})

describe('checkRequest on any value', () => {
  it('never throws, answers the same each time, and names each violation by path and rule of the provider', () => {
    const shaped = fc.oneof(
      fc.anything(),
      fc.record({ messages: fc.array(fc.anything(), { maxLength: 5 }) }),
      fc.record({ input: fc.array(fc.anything(), { maxLength: 5 }) }),
      fc.record({ contents: fc.array(fc.record({ role: fc.anything(), parts: fc.array(fc.anything(), { maxLength: 3 }) }), { maxLength: 4 }) }),
    )
    fc.assert(
      fc.property(
        shaped,
        fc.constantFrom('openai-chat', 'openai-responses', 'anthropic', 'gemini', 'ai-sdk') as fc.Arbitrary<Parameters<typeof checkRequest>[0]>,
        (u, provider) => {
          const first = checkRequest(provider)(u)
          expect(checkRequest(provider)(u)).toEqual(first)
          for (const v of first)
            expect(typeof v.path === 'string' && typeof v.rule === 'string' && v.rule.startsWith(`${provider}/`) && v.message !== '').toBe(
              true,
            )
        },
      ),
      RUNS,
    )
  })
})
