/**
 * The compaction summary: the sections every summary has, the default prompt that asks a model
 * for them, a check that a summary has them, and how a summary message is recognised.
 *
 * @module
 */
import * as E from 'fp-ts/Either'

// --- sections ---

/**
 * The sections of a compaction summary, in order, each a Markdown `## ` heading.
 *
 * @example
 * import { SUMMARY_SECTIONS } from 'chatfold/compaction'
 * SUMMARY_SECTIONS[0] // 'Goal'
 *
 * @since 0.1.0
 * @category compaction
 */
export const SUMMARY_SECTIONS = ['Goal', 'Constraints', 'Progress', 'Decisions', 'Next steps', 'Files'] as const

/**
 * A section of a compaction summary.
 *
 * @since 0.1.0
 * @category compaction
 */
export type SummarySection = (typeof SUMMARY_SECTIONS)[number]

/**
 * The default instructions for a model that summarises a compaction transcript: the transcript
 * follows them (as the user message, or appended). The answer must have the six sections of
 * {@link SUMMARY_SECTIONS} as `## ` headings, which `validateSummary` checks.
 *
 * @example
 * import { SUMMARY_PROMPT, renderTranscript } from 'chatfold/compaction'
 * import { type Messages } from 'chatfold/message'
 * const request = (head: Messages) => [{ role: 'system', content: SUMMARY_PROMPT }, { role: 'user', content: renderTranscript({ maxResultLen: 2_000 })(head) }]
 *
 * @since 0.1.0
 * @category compaction
 */
export const SUMMARY_PROMPT = `You are compacting the history of a working session between a user and an assistant that uses tools.
The transcript below replaces the messages it covers: after this, the assistant will see only your summary and the most recent messages.
Write a summary that lets the assistant continue the work without asking again. Keep facts, names, paths, numbers, commands and error messages exact; leave out greetings, repetition and tool output that no longer matters.
If the transcript starts with a previous summary, extend it: keep what still holds, update what changed.

Answer in Markdown with exactly these six sections, each as a "## " heading, in this order (write "- none" under a section with nothing to say):

## Goal
What the user wants overall, and the current request.
## Constraints
Requirements, preferences and limits the user stated (style, tools, things not to do).
## Progress
What has been done and verified so far, and what failed.
## Decisions
Choices made and why, including approaches rejected.
## Next steps
What remains, starting with what was in progress at the end of the transcript.
## Files
Files, paths, identifiers and URLs that matter, each with a few words on its role.`

/**
 * What `validateSummary` found wrong: the sections missing (or empty), in order.
 *
 * @since 0.1.0
 * @category compaction
 */
export type SummaryProblems = { readonly missing: ReadonlyArray<SummarySection>; readonly empty: ReadonlyArray<SummarySection> }

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const HEADINGS = SUMMARY_SECTIONS.map((s) => new RegExp(`^[ \\t]*#{1,6}[ \\t]*\\**${escapeRe(s)}\\**[ \\t]*:?[ \\t]*$`, 'im'))
const ANY_HEADING = /^[ \t]*#{1,6}[ \t]/m

/**
 * Checks that a summary has every section of {@link SUMMARY_SECTIONS} as a Markdown heading
 * (any level, any case, bold or not) with something under it. Right: the summary itself; left:
 * the sections missing and those present but empty.
 *
 * @example
 * import { validateSummary } from 'chatfold/compaction'
 * validateSummary('## Goal\nFix the parser') // left({ missing: ['Constraints', 'Progress', 'Decisions', 'Next steps', 'Files'], empty: [] })
 *
 * @since 0.1.0
 * @category compaction
 */
export const validateSummary = (summary: string): E.Either<SummaryProblems, string> => {
  const missing: SummarySection[] = []
  const empty: SummarySection[] = []
  SUMMARY_SECTIONS.forEach((section, i) => {
    const m = (HEADINGS[i] as RegExp).exec(summary)
    if (m === null) return void missing.push(section)
    const rest = summary.slice(m.index + m[0].length)
    const next = ANY_HEADING.exec(rest)
    if ((next === null ? rest : rest.slice(0, next.index)).trim() === '') empty.push(section)
  })
  return missing.length === 0 && empty.length === 0 ? E.right(summary) : E.left({ missing, empty })
}

/**
 * What a summary message records about the compaction that made it.
 *
 * @since 0.1.0
 * @category compaction
 */
export type CompactionInfo = {
  /** How many messages the compaction archived (a previous summary among them). */
  readonly summarised: number
  /** The id of the newest message it archived, if any. */
  readonly through?: string
}
