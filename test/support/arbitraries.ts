/**
 * Shared fast-check generators, one per codec. Every generated value is deep-frozen (typed arrays
 * excepted: they cannot be frozen), so a function that mutates its input throws in strict mode.
 */
import fc from 'fast-check'
import type { Kind, Message } from '../../src/message/message.ts'
import type { Part, ToolCallStatus } from '../../src/message/part-model.ts'
import type { Role } from '../../src/message/role.ts'

export const deepFreeze = <A>(a: A): A => {
  if (typeof a === 'object' && a !== null && !ArrayBuffer.isView(a) && !Object.isFrozen(a)) {
    for (const v of Object.values(a)) deepFreeze(v)
    Object.freeze(a)
  }
  return a
}

export const roleArb: fc.Arbitrary<Role> = fc.constantFrom('system', 'user', 'assistant', 'tool')
export const kindArb: fc.Arbitrary<Kind> = fc.constantFrom('normal', 'synthetic', 'ephemeral', 'display', 'bookmark', 'metadata')
export const statusArb: fc.Arbitrary<ToolCallStatus> = fc.constantFrom('pending', 'running', 'complete', 'error')

const idArb = fc.stringMatching(/^[a-z0-9_]{1,12}$/)
const bytesArb = fc.uint8Array({ maxLength: 64 })
const isoArb = fc
  .integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) })
  .map((ms) => new Date(ms).toISOString())

const opt = <K extends string, A>(key: K, arb: fc.Arbitrary<A>) =>
  fc.option(arb, { nil: undefined }).map((v) => (v === undefined ? {} : ({ [key]: v } as { [P in K]: A })))

export const jsonArb: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)

export const partArb: fc.Arbitrary<Part> = fc.oneof(
  fc.string().map((text): Part => ({ type: 'text', text })),
  fc
    .tuple(fc.string(), opt('signature', fc.string()), opt('redacted', fc.boolean()))
    .map(([text, s, r]): Part => ({ type: 'reasoning', text, ...s, ...r })),
  fc
    .tuple(fc.oneof(fc.webUrl().map((url) => ({ url })), bytesArb.map((data) => ({ data }))), opt('mediaType', fc.constantFrom('image/png', 'image/jpeg')))
    .map(([src, mt]): Part => ({ type: 'image', ...src, ...mt })),
  fc
    .tuple(
      fc.oneof(fc.webUrl().map((url) => ({ url })), bytesArb.map((data) => ({ data }))),
      fc.constantFrom('audio/mpeg', 'video/mp4', 'application/pdf'),
      opt('filename', fc.string()),
    )
    .map(([src, mediaType, fn]): Part => ({ type: 'file', mediaType, ...src, ...fn })),
  fc
    .tuple(idArb, fc.string(), fc.json(), statusArb)
    .map(([id, name, args, status]): Part => ({ type: 'tool_call', id, name, arguments: args, status })),
  fc
    .tuple(idArb, fc.string(), fc.boolean(), opt('name', fc.string()))
    .map(([toolCallId, content, isError, n]): Part => ({ type: 'tool_result', toolCallId, content, isError, ...n })),
  fc.constantFrom('end_turn', 'tool_use', 'max_tokens').map((reason): Part => ({ type: 'finish', reason })),
)

export const messageArb: fc.Arbitrary<Message> = fc
  .tuple(
    idArb,
    roleArb,
    fc.array(partArb, { maxLength: 4 }),
    kindArb,
    opt('sender', fc.string()),
    opt('conversationId', idArb),
    opt('createdAt', isoArb),
    opt('updatedAt', isoArb),
    opt('tokens', fc.record({ total: fc.nat() }, { requiredKeys: ['total'] })),
    opt('model', fc.string()),
    opt('metadata', fc.dictionary(fc.string(), jsonArb, { maxKeys: 3 })),
  )
  .map(([id, role, parts, kind, ...rest]) => deepFreeze(Object.assign({ id, role, parts, kind }, ...rest) as Message))

export const messagesArb: fc.Arbitrary<ReadonlyArray<Message>> = fc.array(messageArb, { maxLength: 12 }).map(deepFreeze)

/**
 * A history that is valid as a conversation: a system prompt, then turns in which every tool
 * call of an assistant message is answered by a tool message right after it.
 */
export const conversationArb: fc.Arbitrary<ReadonlyArray<Message>> = fc
  .array(
    fc.tuple(
      fc.string({ maxLength: 40 }),
      fc.string({ maxLength: 40 }),
      fc.array(fc.tuple(fc.constantFrom('read', 'grep', 'bash'), fc.string({ maxLength: 200 })), { maxLength: 3 }),
      kindArb,
    ),
    { maxLength: 8 },
  )
  .map((turns) => {
    const out: Message[] = [{ id: 'sys', role: 'system', kind: 'normal', parts: [{ type: 'text', text: 'You are helpful.' }] }]
    turns.forEach(([user, answer, calls, kind], t) => {
      out.push({ id: `u${t}`, role: 'user', kind: kind === 'metadata' ? 'normal' : kind, parts: [{ type: 'text', text: user }] })
      const ids = calls.map((_, i) => `c${t}_${i}`)
      out.push({
        id: `a${t}`,
        role: 'assistant',
        kind: 'normal',
        parts: [
          { type: 'text', text: answer },
          ...calls.map(([name], i): Part => ({ type: 'tool_call', id: ids[i] ?? '', name, arguments: '{}', status: 'complete' })),
        ],
      })
      calls.forEach(([name, content], i) =>
        out.push({ id: `r${t}_${i}`, role: 'tool', kind: 'normal', parts: [{ type: 'tool_result', toolCallId: ids[i] ?? '', name, content, isError: false }] })
      )
    })
    return deepFreeze(out)
  })
