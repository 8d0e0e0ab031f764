/**
 * Type-level check, run by `tsc`: every key of the installed `@google/genai` `Part` is one that
 * `fromGemini` names (`GEMINI_PART_KEYS`). When the SDK gains a key, this file stops compiling
 * until a handler gives it a home.
 */
import type { Part } from '@google/genai'
import type { GEMINI_PART_KEYS } from '../../../src/adapters/gemini/contents-from.ts'

type Handled = (typeof GEMINI_PART_KEYS)[number]
type Unhandled = Exclude<keyof Part, Handled>
type Stale = Exclude<Handled, keyof Part>

/** `true` only when `T` is `never`. */
type IsNever<T> = [T] extends [never] ? true : false

export const everyPartKeyHandled: IsNever<Unhandled> = true
export const partRead: IsNever<keyof Part> = false
export const noStaleKey: IsNever<Stale> = true
