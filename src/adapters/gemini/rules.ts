/**
 * Gemini `generateContent` request rules (`{ systemInstruction?, contents, model? }`), from the API
 * reference, Google's thought-signature guide and the documented 400s: no empty text part (unless it
 * carries a signature), no content without parts, roles `user` and `model` only, every function call
 * answered by the next content, and for Gemini 3 models a signature on the first function call of
 * every step of the current turn (Google's documented placeholder when the call was not signed by
 * Gemini: made by another provider, or imported).
 *
 * @module
 */
import { arr, noteFix, type Obj, type RequestViolation, type Rule, str } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

/** The signature Google documents for a function call Gemini did not sign itself. */
export const GEMINI_PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator'

const contentsOf = (request: Obj): ReadonlyArray<unknown> => arr(request['contents'])
const partsOf = (c: unknown): ReadonlyArray<unknown> => (isObject(c) ? arr(c['parts']) : [])

/** A text part with no text and nothing else to carry (no signature, no other data). */
const isEmptyText = (p: unknown): boolean =>
  isObject(p) && p['text'] === '' && (p['thoughtSignature'] === undefined || p['thoughtSignature'] === '') &&
  Object.keys(p).every((k) => k === 'text' || k === 'thought' || k === 'thoughtSignature')

const withContents = (request: Obj, contents: ReadonlyArray<unknown>): Obj => ({ ...request, contents })

// --- empty text ---

const TEXT = 'gemini/text-not-empty'

const emptyText: Rule = {
  name: TEXT,
  check: (request) => {
    const out: RequestViolation[] = []
    partsOf(request['systemInstruction']).forEach((p, j) => {
      if (isEmptyText(p)) out.push({ path: `systemInstruction.parts[${j}].text`, rule: TEXT, message: 'a text part must not be empty' })
    })
    contentsOf(request).forEach((c, i) =>
      partsOf(c).forEach((p, j) => {
        if (isEmptyText(p)) out.push({ path: `contents[${i}].parts[${j}].text`, rule: TEXT, message: 'a text part must not be empty' })
      })
    )
    return out
  },
  fix: (request, context) => {
    let out = request
    const system = request['systemInstruction']
    if (partsOf(system).some(isEmptyText)) {
      const kept = partsOf(system).filter((p, j) => {
        if (isEmptyText(p)) noteFix(context, TEXT, `systemInstruction.parts[${j}]`, 'dropped')
        return !isEmptyText(p)
      })
      if (kept.length === 0) {
        const { systemInstruction: _, ...rest } = out
        out = rest
      } else out = { ...out, systemInstruction: { ...(system as Obj), parts: kept } }
    }
    const contents = contentsOf(out)
    if (!contents.some((c) => partsOf(c).some(isEmptyText))) return out
    return withContents(
      out,
      contents.map((c, i) => {
        if (!partsOf(c).some(isEmptyText)) return c
        return {
          ...(c as Obj),
          parts: partsOf(c).filter((p, j) => {
            if (isEmptyText(p)) noteFix(context, TEXT, `contents[${i}].parts[${j}]`, 'dropped')
            return !isEmptyText(p)
          }),
        }
      }),
    )
  },
}

// --- empty contents ---

const PARTS = 'gemini/parts-not-empty'

const emptyContents: Rule = {
  name: PARTS,
  check: (request) =>
    contentsOf(request).flatMap((
      c,
      i,
    ) => (partsOf(c).length === 0 ? [{ path: `contents[${i}].parts`, rule: PARTS, message: 'a content must have at least one part' }] : [])),
  fix: (request, context) => {
    const contents = contentsOf(request)
    if (!contents.some((c) => partsOf(c).length === 0)) return request
    const out: Obj[] = []
    contents.forEach((c, i) => {
      if (!isObject(c)) return
      if (partsOf(c).length === 0) return void noteFix(context, PARTS, `contents[${i}]`, 'dropped')
      const previous = out[out.length - 1]
      if (previous !== undefined && previous['role'] === c['role']) {
        out[out.length - 1] = { ...previous, parts: [...partsOf(previous), ...partsOf(c)] }
        noteFix(context, PARTS, `contents[${i}]`, 'merged')
      } else out.push(c)
    })
    return withContents(request, out)
  },
}

// --- roles and pairing ---

const ROLES = 'gemini/roles'

const roles: Rule = {
  name: ROLES,
  check: (request) =>
    contentsOf(request).flatMap((c, i) => {
      const role = isObject(c) ? c['role'] : undefined
      return role === 'user' || role === 'model' ? [] : [{ path: `contents[${i}].role`, rule: ROLES, message: 'a content role must be "user" or "model"' }]
    }),
}

const PAIRS = 'gemini/function-responses-follow-calls'

const isCall = (p: unknown): p is Obj => isObject(p) && isObject(p['functionCall'])
const isResponse = (p: unknown): p is Obj => isObject(p) && isObject(p['functionResponse'])

const pairs: Rule = {
  name: PAIRS,
  check: (request) => {
    const out: RequestViolation[] = []
    const contents = contentsOf(request)
    contents.forEach((c, i) => {
      const calls = partsOf(c).filter(isCall).length
      if (calls === 0) return
      const next = contents[i + 1]
      if (next === undefined) return
      const responses = partsOf(next).filter(isResponse).length
      if (responses !== calls) {
        out.push({
          path: `contents[${i + 1}]`,
          rule: PAIRS,
          message: `the ${calls} function call(s) of contents[${i}] need as many function responses right after, found ${responses}`,
        })
      }
    })
    contents.forEach((c, i) => {
      if (partsOf(c).some(isResponse) && !partsOf(contents[i - 1]).some(isCall)) {
        out.push({ path: `contents[${i}]`, rule: PAIRS, message: 'function responses must follow the content that made the calls' })
      }
    })
    return out
  },
}

// --- Gemini 3 signatures ---

const SIGNATURE = 'gemini/gemini-3-call-signature'

const isGemini3 = (model: string | undefined): boolean => model !== undefined && /gemini-3/i.test(model)

/** The first content of the current turn: after the last user content that is not only function responses. */
const turnStart = (contents: ReadonlyArray<unknown>): number => {
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i]
    if (isObject(c) && c['role'] === 'user' && partsOf(c).some((p) => !isResponse(p))) return i + 1
  }
  return 0
}

/** The steps of the current turn whose first function call has no signature: `[content, part]`. */
const unsigned = (contents: ReadonlyArray<unknown>): ReadonlyArray<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  for (let i = turnStart(contents); i < contents.length; i++) {
    const c = contents[i]
    if (!isObject(c) || c['role'] !== 'model') continue
    const j = partsOf(c).findIndex(isCall)
    if (j >= 0 && (str(partsOf(c)[j], 'thoughtSignature') ?? '') === '') out.push([i, j])
  }
  return out
}

const signature: Rule = {
  name: SIGNATURE,
  check: (request) =>
    isGemini3(str(request, 'model'))
      ? unsigned(contentsOf(request)).map(([i, j]) => ({
        path: `contents[${i}].parts[${j}].thoughtSignature`,
        rule: SIGNATURE,
        message: 'Gemini 3 needs a thought signature on the first function call of each step of the current turn',
      }))
      : [],
  fix: (request, context) => {
    if (!isGemini3(str(request, 'model') ?? context.model)) return request
    const missing = unsigned(contentsOf(request))
    if (missing.length === 0) return request
    const contents = [...contentsOf(request)]
    for (const [i, j] of missing) {
      const c = contents[i] as Obj
      const parts = [...partsOf(c)]
      parts[j] = { ...(parts[j] as Obj), thoughtSignature: GEMINI_PLACEHOLDER_SIGNATURE }
      contents[i] = { ...c, parts }
      noteFix(context, SIGNATURE, `contents[${i}].parts[${j}].thoughtSignature`, 'filled')
    }
    return withContents(request, contents)
  },
}

/** Gemini's rules, in the order their fixes run. */
export const geminiRules: ReadonlyArray<Rule> = [emptyText, emptyContents, roles, pairs, signature]
