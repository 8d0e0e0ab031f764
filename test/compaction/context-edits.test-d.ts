/**
 * Type-level checks, run by `tsc` (`npm run typecheck`): the context edits chatfold applies and
 * sends are the ones the installed Anthropic SDK defines, both ways.
 */
import type {
  BetaClearThinking20251015Edit,
  BetaClearToolUses20250919Edit,
  BetaContextManagementResponse,
} from '@anthropic-ai/sdk/resources/beta/messages/messages'
import type { AppliedContextEdit, ClearThinkingEdit, ClearToolUsesEdit } from '../../src/compaction/context-edits.ts'

type Assert<T extends true> = T
type Assignable<A, B> = [A] extends [B] ? true : false
type Mutable<T> = T extends ReadonlyArray<infer U> ? Array<Mutable<U>> : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T
/** The SDK's shape without its explicit `null`s, which chatfold never writes. */
type NoNull<T> = { [K in keyof T]: Exclude<T[K], null> }

export type ContextEditChecks = [
  Assert<Assignable<Mutable<ClearToolUsesEdit>, BetaClearToolUses20250919Edit>>,
  Assert<Assignable<NoNull<BetaClearToolUses20250919Edit>, ClearToolUsesEdit>>,
  Assert<Assignable<Mutable<ClearThinkingEdit>, BetaClearThinking20251015Edit>>,
  Assert<Assignable<NoNull<BetaClearThinking20251015Edit>, ClearThinkingEdit>>,
  Assert<Assignable<Mutable<AppliedContextEdit>, BetaContextManagementResponse['applied_edits'][number]>>,
  Assert<Assignable<BetaContextManagementResponse['applied_edits'][number], AppliedContextEdit>>,
]
