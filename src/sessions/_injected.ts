/**
 * Text a coding tool injects as a user message (environment context, instructions files, shell
 * commands), told from a person's text by its opening marker.
 *
 * @module
 */

/** Markers of text a tool injects as a user message, and the origin each names. */
const INJECTED: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\s*<environment_context>/, 'environment_context'],
  [/^\s*<user_instructions>/, 'user_instructions'],
  [/^\s*# AGENTS\.md instructions/, 'agents_md'],
  [/^\s*<INSTRUCTIONS>/, 'agents_md'],
  [/^\s*<user_shell_command>/, 'user_shell_command'],
  [/^\s*<turn_aborted>/, 'turn_aborted'],
  [/^\s*<skill>/, 'skill'],
  [/^\s*<subagent_notification>/, 'subagent_notification'],
  [/^\s*<permissions instructions>/, 'permissions_instructions'],
  [/^\s*<session_context>/, 'session_context'],
]

/** The origin of a text a tool injected (environment context, instructions), or `undefined` for a person's text. */
export const injectedOrigin = (text: string): string | undefined => INJECTED.find(([re]) => re.test(text))?.[1]
