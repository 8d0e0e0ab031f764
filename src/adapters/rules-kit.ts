/**
 * Request rules, the kit: what a provider requires of a request body, each stated once as a rule object that
 * both lints any request (`checkRequest`) and, where a fix exists that loses nothing the provider
 * could use, repairs the request a `to…` adapter built (recorded as a `request_fixed` note).
 *
 * @module
 */
import type { AdapterNote } from './types.ts'
import { isObject } from '../internal/object.ts'

/**
 * A place where a request breaks a provider's rule: the path into the request, the rule's name
 * (`anthropic/text-not-blank`, …) and what is wrong, for people.
 *
 * @example
 * import type { RequestViolation } from 'chatfold/adapters'
 * const v: RequestViolation = { path: 'messages[1].content[0].text', rule: 'anthropic/text-not-blank', message: 'a text block must hold non-whitespace text' }
 *
 * @since 0.1.0
 * @category adapters
 */
export type RequestViolation = { readonly path: string; readonly rule: string; readonly message: string }

/** What a fix may use and record: the target model (when the caller named one) and the notes. */
export type FixContext = { readonly model: string | undefined; readonly notes: AdapterNote[] }

/** What a fix did to the request, for the `request_fixed` note. */
export type FixAction = 'trimmed' | 'dropped' | 'filled' | 'moved' | 'merged'

/**
 * One rule of a provider: `check` lints any value (a request built by any means) and returns every
 * violation by path; `fix`, when the rule has one, returns the request made to follow the rule (the
 * input itself when it already does) and notes what it changed.
 */
export type Rule = {
  readonly name: string
  readonly check: (request: Obj) => ReadonlyArray<RequestViolation>
  readonly fix?: (request: Obj, context: FixContext) => Obj
}

/** A JSON object, loosely: rules read requests that nobody has validated. */
export type Obj = Readonly<Record<string, unknown>>

/** The array a field holds, or an empty one. */
export const arr = (u: unknown): ReadonlyArray<unknown> => (Array.isArray(u) ? u : [])

/** A string field of an object, or `undefined`. */
export const str = (o: unknown, key: string): string | undefined => (isObject(o) && typeof o[key] === 'string' ? o[key] : undefined)

/** Records a fix as a note. */
export const noteFix = (context: FixContext, rule: string, path: string, action: FixAction): void => {
  context.notes.push({ kind: 'request_fixed', rule, path, action })
}

/**
 * Runs the fixes of `rules` in order over a request built by a `to…` adapter. A rule reads and
 * rewrites the request as JSON, by path, and keeps its shape (each rule's tests hold it to that);
 * the request's type is therefore taken back as it came, the one claim here the compiler cannot check.
 */
export const applyRules = <A extends Obj>(rules: ReadonlyArray<Rule>, request: A, context: FixContext): A => {
  let out: Obj = request
  for (const rule of rules) if (rule.fix !== undefined) out = rule.fix(out, context)
  return out as A
}

/** Every violation of `rules` in a request. */
export const checkRules = (rules: ReadonlyArray<Rule>, request: Obj): ReadonlyArray<RequestViolation> => rules.flatMap((rule) => rule.check(request))

/** Whether a text is empty or whitespace only (what several providers refuse as a text block). */
export const isBlank = (s: string): boolean => s.trim() === ''

const EXTENSIONS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'application/json': 'json',
  'application/xml': 'xml',
  'application/zip': 'zip',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/csv': 'csv',
  'text/html': 'html',
  'text/css': 'css',
  'text/javascript': 'js',
  'text/x-python': 'py',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
}

/** A file name for bytes of a media type that came without one: `file.pdf`, `file.txt`, `file.bin`. */
export const filenameFor = (mediaType: string): string => {
  const base = (mediaType.split(';')[0] ?? '').trim().toLowerCase()
  const known = EXTENSIONS[base]
  if (known !== undefined) return `file.${known}`
  const sub = /^[a-z]+\/(?:x-)?([a-z0-9]{1,8})$/.exec(base)?.[1]
  return `file.${sub ?? 'bin'}`
}

/** The media type of a base64 data URL, or `undefined`. */
export const dataUrlType = (url: string): string | undefined => /^data:([^;,]+)[;,]/.exec(url)?.[1]

/** A copy of an array with one element replaced (the input when the element is the same). */
export const replaceAt = <T>(xs: ReadonlyArray<T>, i: number, x: T): ReadonlyArray<T> => (xs[i] === x ? xs : [...xs.slice(0, i), x, ...xs.slice(i + 1)])
