/**
 * The OpenAI adapters' output, validated against OpenAI's own OpenAPI document
 * (`shared/specs/openai-openapi.json`, OpenAPI 3.1, so JSON Schema 2020-12): each Chat Completions
 * message against `ChatCompletionRequestMessage`, each Responses item against `InputItem`, and whole
 * request bodies against `CreateChatCompletionRequest` and `CreateResponse`. Node only (it reads a
 * 3 MB file, once).
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { ValidateFunction } from 'ajv'
import { fromOpenAIChat } from '../../src/adapters/openai/chat-from.ts'
import { toOpenAIChat } from '../../src/adapters/openai/chat.ts'
import { fromOpenAIChatRequest, fromOpenAIResponsesRequest, toOpenAIChatRequest, toOpenAIResponsesRequest } from '../../src/adapters/openai/request.ts'
import { fromOpenAIResponses } from '../../src/adapters/openai/responses-from.ts'
import { toOpenAIResponses } from '../../src/adapters/openai/responses.ts'
import type { Messages } from '../../src/message/message.ts'
import { conversationArb, messagesArb } from '../support/arbitraries.ts'
import * as chat from '../adapters/fixtures/openai-chat.ts'
import * as responses from '../adapters/fixtures/openai-responses.ts'
import * as anthropic from '../adapters/fixtures/anthropic.ts'
import * as corpus from '../adapters/fixtures/openai-corpus.ts'
import { fromAnthropic } from '../../src/adapters/anthropic/messages-from.ts'

// OpenAI's published document is not part of this repository: it sits in the `shared/specs/` folder
// beside the checkout (as on CI), or wherever OPENAI_OPENAPI_SPEC points. Without it the schema
// checks are skipped, and say so, except on CI, where a missing document is a failure.
const SPEC = process.env['OPENAI_OPENAPI_SPEC'] ?? fileURLToPath(new URL('../../../shared/specs/openai-openapi.json', import.meta.url))
const HAVE_SPEC = existsSync(SPEC)

it.runIf(process.env['CI'] !== undefined)('the OpenAPI document is there on CI', () => {
  expect(existsSync(SPEC)).toBe(true)
})

type Validators = {
  readonly message: ValidateFunction
  readonly item: ValidateFunction
  readonly chatRequest: ValidateFunction
  readonly responseRequest: ValidateFunction
}

let v: Validators

beforeAll(() => {
  if (!HAVE_SPEC) return
  const doc = JSON.parse(readFileSync(SPEC, 'utf8')) as { components: { schemas: Record<string, { oneOf?: unknown; anyOf?: unknown }> } }
  // `InputItem` lists both `EasyInputMessage` and `Item` (whose `InputMessage` also describes a user
  // message) under `oneOf`, so a user message matches two members; the API tells them apart by its
  // `discriminator`. Here an item must match at least one member.
  const inputItem = doc.components.schemas['InputItem']
  if (inputItem?.oneOf !== undefined) {
    inputItem.anyOf = inputItem.oneOf
    delete inputItem.oneOf
  }
  // A few schemas carry OpenAPI 3.0's `nullable` without a `type`: meaningless in 3.1, and an error to ajv.
  const strip = (u: unknown): void => {
    if (Array.isArray(u)) { for (const x of u) strip(x) }
    else if (typeof u === 'object' && u !== null) {
      const o = u as Record<string, unknown>
      if ('nullable' in o && !('type' in o)) delete o['nullable']
      for (const x of Object.values(o)) strip(x)
    }
  }
  strip(doc.components)
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  ajv.addSchema({ $id: 'openai', components: doc.components })
  const get = (name: string): ValidateFunction => {
    const f = ajv.getSchema(`openai#/components/schemas/${name}`)
    if (f === undefined) throw new Error(`no schema ${name}`)
    return f
  }
  v = {
    message: get('ChatCompletionRequestMessage'),
    item: get('InputItem'),
    chatRequest: get('CreateChatCompletionRequest'),
    responseRequest: get('CreateResponse'),
  }
}, 60_000)

/** The value as it goes on the wire (bytes never reach these requests: they are data URLs). */
const wire = (u: unknown): unknown => JSON.parse(JSON.stringify(u))

const check = (f: ValidateFunction, u: unknown): void => {
  const ok = f(wire(u))
  if (!ok) throw new Error(`${JSON.stringify(u).slice(0, 400)}\n${JSON.stringify(f.errors?.slice(0, 4), null, 1)}`)
}

const histories: ReadonlyArray<readonly [string, () => Messages]> = [
  ['the Chat Completions request fixture', () => E.getOrElseW(() => [] as Messages)(fromOpenAIChat(chat.request))],
  ['the Responses input fixture', () => E.getOrElseW(() => [] as Messages)(fromOpenAIResponses(responses.request))],
  ['the Anthropic request fixture', () => E.getOrElseW(() => [] as Messages)(fromAnthropic(anthropic.request))],
]

describe.runIf(HAVE_SPEC)(`toOpenAIChat against the OpenAPI document${HAVE_SPEC ? '' : ' (skipped: no OpenAPI document; set OPENAI_OPENAPI_SPEC)'}`, () => {
  it.each(histories)('writes valid messages for %s', (_, history) => {
    const h = history()
    expect(h.length).toBeGreaterThan(0)
    for (const role of ['system', 'developer'] as const) {
      const r = toOpenAIChat({ systemRole: role, foreignReasoning: 'text' })(h)
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      for (const m of r.right.request.messages) check(v.message, m)
      check(v.chatRequest, { model: 'gpt-5', ...r.right.request })
    }
  })

  it('writes valid messages for any history it repairs', () => {
    fc.assert(
      fc.property(fc.oneof(messagesArb, conversationArb), (h) => {
        const r = toOpenAIChat({ repair: 'repair', foreignReasoning: 'text' })(h)
        if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
        for (const m of r.right.request.messages) check(v.message, m)
      }),
      { numRuns: 150 },
    )
  })

  it('rejects what the API rejects (the validator is not vacuous)', () => {
    expect(v.message({ role: 'tool', content: 'x' })).toBe(false)
    expect(v.message({ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f' } }] })).toBe(false)
  })
})

describe.runIf(HAVE_SPEC)(
  `toOpenAIResponses against the OpenAPI document${HAVE_SPEC ? '' : ' (skipped: no OpenAPI document; set OPENAI_OPENAPI_SPEC)'}`,
  () => {
    it.each(histories)('writes valid input items for %s', (_, history) => {
      const h = history()
      const r = toOpenAIResponses({ systemRole: 'developer', foreignReasoning: 'text' })(h)
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      for (const item of r.right.request.input) check(v.item, item)
      check(v.responseRequest, { model: 'gpt-5', ...r.right.request })
    })

    it('writes valid input items for any history it repairs', () => {
      fc.assert(
        fc.property(fc.oneof(messagesArb, conversationArb), (h) => {
          const r = toOpenAIResponses({ repair: 'repair', foreignReasoning: 'text' })(h)
          if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
          for (const item of r.right.request.input) check(v.item, item)
        }),
        { numRuns: 150 },
      )
    })

    it('rejects what the API rejects (the validator is not vacuous)', () => {
      expect(v.item({ type: 'function_call_output', call_id: 'x'.repeat(65), output: 'o' })).toBe(false)
      expect(v.item({ type: 'reasoning', summary: [] })).toBe(false)
    })
  },
)

describe.runIf(HAVE_SPEC)(
  `the OpenAI corpus against the OpenAPI document${HAVE_SPEC ? '' : ' (skipped: no OpenAPI document; set OPENAI_OPENAPI_SPEC)'}`,
  () => {
    // Where the document and the API disagree, the API wins: it takes a reasoning item without an id
    // (stateless histories strip item ids), and the document's `required` lists of two items name
    // fields their `properties` do not have (`call_id`, `request_id`; the SDK's types do not have them).
    const disagrees = (item: unknown): boolean => {
      const o = item as { type?: unknown; id?: unknown }
      return (o.type === 'reasoning' && o.id === undefined) || o.type === 'local_shell_call_output' || o.type === 'mcp_approval_response'
    }

    it.each(Object.entries(corpus.responsesCorpus))('every item of Responses %s is a documented input item, and goes back as one', (_, body) => {
      const input: ReadonlyArray<unknown> = body.input
      for (const item of input) if (!disagrees(item)) check(v.item, item)
      const r = toOpenAIResponses()(E.getOrElseW(() => [] as Messages)(fromOpenAIResponses(body)))
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      check(v.responseRequest, { model: 'gpt-5', ...r.right.request, input: r.right.request.input.filter((i) => !disagrees(i)) })
    })

    it('the disagreements are only those', () => {
      expect(v.item({ type: 'reasoning', summary: [] })).toBe(false)
      expect(v.item({ type: 'mcp_approval_response', approval_request_id: 'r', approve: true })).toBe(false)
    })

    it.each(Object.entries(corpus.chatCorpus))('every message of Chat %s is a documented message, and goes back as one', (_, body) => {
      for (const m of body.messages) check(v.message, m)
      const r = toOpenAIChat()(E.getOrElseW(() => [] as Messages)(fromOpenAIChat(body)))
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      check(v.chatRequest, { model: 'gpt-5', ...r.right.request })
    })
  },
)

describe.runIf(HAVE_SPEC)(
  `OpenAI request envelopes against the OpenAPI document${HAVE_SPEC ? '' : ' (skipped: no OpenAPI document; set OPENAI_OPENAPI_SPEC)'}`,
  () => {
    it('the corpus bodies are documented requests, and go back as documented requests', () => {
      check(v.responseRequest, corpus.responsesRequest)
      check(v.chatRequest, corpus.chatRequest)
      const read = [fromOpenAIResponsesRequest(corpus.responsesRequest), fromOpenAIChatRequest(corpus.chatRequest)] as const
      if (E.isLeft(read[0]) || E.isLeft(read[1])) throw new Error('decoding failed')
      const responses = toOpenAIResponsesRequest()(read[0].right)
      const chatBody = toOpenAIChatRequest()(read[1].right)
      if (E.isLeft(responses) || E.isLeft(chatBody)) throw new Error('conversion failed')
      check(v.responseRequest, responses.right.request)
      check(v.chatRequest, chatBody.right.request)
    })
  },
)
