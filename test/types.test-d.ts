/**
 * Type-level checks, verified by `tsc` (npm run typecheck): readonly all the way down, types derived
 * from codecs, and data-last functions that infer through fp-ts `pipe`.
 */
import { expectTypeOf } from 'vitest'
import { pipe } from 'fp-ts/function'
import type * as t from 'io-ts'
import type * as O from 'fp-ts/Option'
import { textContent } from '../src/message/accessors.ts'
import { type Message, type MessageC, type Messages, textMessage } from '../src/message/message.ts'
import { getMeta, setMeta } from '../src/message/edit.ts'
import type { Part, PartWire, ProviderFields, ToolCallPart } from '../src/message/part-model.ts'
import type { Role } from '../src/message/role.ts'
import type * as E from 'fp-ts/Either'
import type { DecodeFailure } from '../src/message/failure.ts'
import { type ChatInput, validateInput, type ValidInput } from '../src/store/input.ts'
import { submitDecodedEvent } from '../src/store/simulator.ts'

declare const m: Message
declare const ms: Messages

// the type is the codec's
expectTypeOf<Message>().toEqualTypeOf<t.TypeOf<typeof MessageC>>()
expectTypeOf<Role>().toEqualTypeOf<'system' | 'user' | 'assistant' | 'tool'>()

// readonly all the way down
// @ts-expect-error a message's fields are readonly
m.id = 'x'
// @ts-expect-error parts are a readonly array
m.parts.push({ type: 'text', text: 'x' })
// @ts-expect-error a history is a readonly array
ms.push(m)
declare const call: ToolCallPart
// @ts-expect-error a part's fields are readonly
call.arguments = '{}'

// exactOptionalPropertyTypes: an optional field never holds undefined explicitly
// @ts-expect-error sender is optional, not string | undefined
const bad: Message = { id: '1', role: 'user', kind: 'normal', parts: [], sender: undefined }
void bad

// pipe inference through data-last functions
expectTypeOf(pipe(textMessage('user', 'hi'), setMeta('k', 1), getMeta('k'))).toEqualTypeOf<O.Option<unknown>>()
expectTypeOf(pipe(m, textContent)).toEqualTypeOf<string>()

// the wire form is tagged
expectTypeOf<PartWire['type']>().toEqualTypeOf<string>()
expectTypeOf<Extract<Part, { type: 'text' }>>().toEqualTypeOf<{ readonly type: 'text'; readonly text: string; readonly providerFields?: ProviderFields }>()

// an input the decoder has not checked is not a ValidInput, nor raw data a DecodedEvent
declare const input: ChatInput
// @ts-expect-error a ChatInput is not known to be valid
const unchecked: ValidInput = input
void unchecked
// @ts-expect-error raw data is not a decoded event
submitDecodedEvent({ data: { role: 'user', content: 'Hi' } })
expectTypeOf(validateInput).returns.toEqualTypeOf<E.Either<DecodeFailure, ValidInput>>()
