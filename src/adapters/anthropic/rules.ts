/**
 * Anthropic Messages request rules (`{ system?, messages }`), from the Messages API reference and
 * its documented 400s: text blocks hold non-whitespace text, a final assistant turn (a prefill) does
 * not end in whitespace, an error result is not empty, no turn is empty, every `tool_use` is answered by `tool_result` blocks that
 * open the next user turn, tool ids match `^[a-zA-Z0-9_-]+$`, thinking blocks carry a signature.
 *
 * @module
 */
import { arr, isBlank, noteFix, type Obj, replaceAt, type RequestViolation, type Rule, str } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

/** The tool-use ids Anthropic accepts. */
export const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/

const messagesOf = (request: Obj): ReadonlyArray<unknown> => arr(request['messages'])

/** The content of a turn as blocks (a string is one text block). */
const blocksOf = (turn: unknown): ReadonlyArray<unknown> => {
  const content = isObject(turn) ? turn['content'] : undefined
  return typeof content === 'string' ? [{ type: 'text', text: content }] : arr(content)
}

const isText = (b: unknown): b is Obj & { readonly text: string } => isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string'

const withMessages = (request: Obj, messages: ReadonlyArray<unknown>): Obj => (messages === request['messages'] ? request : { ...request, messages })

// --- prefill ---

const PREFILL = 'anthropic/prefill-no-trailing-whitespace'

/** The final assistant turn's last text, where the prefill rule applies. */
const prefillText = (request: Obj): { readonly i: number; readonly j: number | undefined; readonly text: string } | undefined => {
  const ms = messagesOf(request)
  const i = ms.length - 1
  const last = ms[i]
  if (!isObject(last) || last['role'] !== 'assistant') return undefined
  if (typeof last['content'] === 'string') return { i, j: undefined, text: last['content'] }
  const blocks = arr(last['content'])
  const j = blocks.length - 1
  const b = blocks[j]
  return isText(b) ? { i, j, text: b.text } : undefined
}

const prefill: Rule = {
  name: PREFILL,
  check: (request) => {
    const p = prefillText(request)
    if (p === undefined || p.text === p.text.trimEnd() || isBlank(p.text)) return []
    return [{
      path: `messages[${p.i}].content${p.j === undefined ? '' : `[${p.j}].text`}`,
      rule: PREFILL,
      message: 'final assistant content cannot end with trailing whitespace',
    }]
  },
  fix: (request, context) => {
    const p = prefillText(request)
    if (p === undefined || p.text === p.text.trimEnd() || isBlank(p.text)) return request
    const ms = messagesOf(request)
    const last = ms[p.i] as Obj
    const trimmed = p.text.trimEnd()
    const content = p.j === undefined ? trimmed : replaceAt(arr(last['content']), p.j, { ...(arr(last['content'])[p.j] as Obj), text: trimmed })
    noteFix(context, PREFILL, `messages[${p.i}].content${p.j === undefined ? '' : `[${p.j}].text`}`, 'trimmed')
    return withMessages(request, replaceAt(ms, p.i, { ...last, content }))
  },
}

// --- blank text ---

const BLANK = 'anthropic/text-not-blank'
const BLANK_MESSAGE = 'a text block must hold non-whitespace text'

const blankText: Rule = {
  name: BLANK,
  check: (request) => {
    const out: RequestViolation[] = []
    const system = request['system']
    if (typeof system === 'string' && isBlank(system)) out.push({ path: 'system', rule: BLANK, message: BLANK_MESSAGE })
    arr(system).forEach((b, j) => {
      if (isText(b) && isBlank(b.text)) out.push({ path: `system[${j}].text`, rule: BLANK, message: BLANK_MESSAGE })
    })
    messagesOf(request).forEach((m, i) => {
      if (isObject(m) && typeof m['content'] === 'string') {
        if (isBlank(m['content'])) out.push({ path: `messages[${i}].content`, rule: BLANK, message: BLANK_MESSAGE })
        return
      }
      blocksOf(m).forEach((b, j) => {
        if (isText(b) && isBlank(b.text)) out.push({ path: `messages[${i}].content[${j}].text`, rule: BLANK, message: BLANK_MESSAGE })
        if (isObject(b) && b['type'] === 'tool_result') {
          arr(b['content']).forEach((c, k) => {
            if (isText(c) && isBlank(c.text)) out.push({ path: `messages[${i}].content[${j}].content[${k}].text`, rule: BLANK, message: BLANK_MESSAGE })
          })
        }
      })
    })
    return out
  },
  fix: (request, context) => {
    let out = request
    const system = request['system']
    if (typeof system === 'string' && isBlank(system)) {
      const { system: _, ...rest } = out
      out = rest
      noteFix(context, BLANK, 'system', 'dropped')
    } else if (Array.isArray(system) && system.some((b) => isText(b) && isBlank(b.text))) {
      const kept = system.filter((b, j) => {
        const blank = isText(b) && isBlank(b.text)
        if (blank) noteFix(context, BLANK, `system[${j}]`, 'dropped')
        return !blank
      })
      if (kept.length === 0) {
        const { system: _, ...rest } = out
        out = rest
      } else out = { ...out, system: kept }
    }
    const ms = messagesOf(out)
    const fixed = ms.map((m, i) => {
      if (!isObject(m)) return m
      if (typeof m['content'] === 'string') {
        if (!isBlank(m['content'])) return m
        noteFix(context, BLANK, `messages[${i}].content`, 'dropped')
        return { ...m, content: [] }
      }
      const blocks = arr(m['content'])
      let changed = false
      const kept: unknown[] = []
      blocks.forEach((b, j) => {
        if (isText(b) && isBlank(b.text)) {
          noteFix(context, BLANK, `messages[${i}].content[${j}]`, 'dropped')
          changed = true
          return
        }
        if (isObject(b) && b['type'] === 'tool_result' && arr(b['content']).some((c) => isText(c) && isBlank(c.text))) {
          const inner = arr(b['content']).filter((c, k) => {
            const blank = isText(c) && isBlank(c.text)
            if (blank) noteFix(context, BLANK, `messages[${i}].content[${j}].content[${k}]`, 'dropped')
            return !blank
          })
          changed = true
          kept.push({ ...b, content: inner.length === 0 ? '' : inner })
          return
        }
        kept.push(b)
      })
      return changed ? { ...m, content: kept } : m
    })
    return fixed.some((m, i) => m !== ms[i]) ? withMessages(out, fixed) : out
  },
}

// --- error results ---

const ERROR_RESULT = 'anthropic/error-result-not-empty'

/** The text an error result with no content goes out with. */
export const EMPTY_ERROR_TEXT = 'Error (no output)'

const isEmptyError = (b: unknown): boolean => {
  if (!isObject(b) || b['type'] !== 'tool_result' || b['is_error'] !== true) return false
  const content = b['content']
  return content === undefined || content === '' || (Array.isArray(content) && content.length === 0)
}

const errorResults: Rule = {
  name: ERROR_RESULT,
  check: (request) =>
    messagesOf(request).flatMap((m, i) =>
      blocksOf(m).flatMap((
        b,
        j,
      ) => (isEmptyError(b)
        ? [{ path: `messages[${i}].content[${j}].content`, rule: ERROR_RESULT, message: 'content cannot be empty if is_error is true' }]
        : [])
      )
    ),
  fix: (request, context) => {
    const ms = messagesOf(request)
    if (!ms.some((m) => isObject(m) && Array.isArray(m['content']) && m['content'].some(isEmptyError))) return request
    return withMessages(
      request,
      ms.map((m, i) =>
        isObject(m) && Array.isArray(m['content']) && m['content'].some(isEmptyError)
          ? {
            ...m,
            content: arr(m['content']).map((b, j) => {
              if (!isEmptyError(b)) return b
              noteFix(context, ERROR_RESULT, `messages[${i}].content[${j}].content`, 'filled')
              return { ...(b as Obj), content: EMPTY_ERROR_TEXT }
            }),
          }
          : m
      ),
    )
  },
}

// --- empty turns ---

const EMPTY = 'anthropic/content-not-empty'

/** User content with its tool results first, as Anthropic requires. */
const resultsFirst = (blocks: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  const results = blocks.filter((b) => isObject(b) && b['type'] === 'tool_result')
  return results.length === 0 ? blocks : [...results, ...blocks.filter((b) => !(isObject(b) && b['type'] === 'tool_result'))]
}

const emptyTurns: Rule = {
  name: EMPTY,
  check: (request) =>
    messagesOf(request).flatMap((m, i) =>
      isObject(m) && Array.isArray(m['content']) && m['content'].length === 0
        ? [{ path: `messages[${i}].content`, rule: EMPTY, message: 'a message must have non-empty content' }]
        : []
    ),
  fix: (request, context) => {
    const ms = messagesOf(request)
    if (!ms.some((m) => isObject(m) && Array.isArray(m['content']) && m['content'].length === 0)) return request
    // drop the empty turns, then join the turns of one role that now meet (results first)
    const out: Obj[] = []
    ms.forEach((m, i) => {
      if (!isObject(m)) return
      if (Array.isArray(m['content']) && m['content'].length === 0) {
        noteFix(context, EMPTY, `messages[${i}]`, 'dropped')
        return
      }
      const previous = out[out.length - 1]
      if (previous !== undefined && previous['role'] === m['role']) {
        const joined = [...blocksOf(previous), ...blocksOf(m)]
        out[out.length - 1] = { ...previous, content: m['role'] === 'user' ? resultsFirst(joined) : joined }
        noteFix(context, EMPTY, `messages[${i}]`, 'merged')
      } else out.push(m)
    })
    return withMessages(request, out)
  },
}

// --- tool pairing ---

const PAIRS = 'anthropic/tool-results-follow-calls'

const toolPairs: Rule = {
  name: PAIRS,
  check: (request) => {
    const out: RequestViolation[] = []
    const ms = messagesOf(request)
    let open = new Set<string>()
    ms.forEach((m, i) => {
      const blocks = blocksOf(m)
      const role = isObject(m) ? m['role'] : undefined
      if (role === 'user') {
        let seenOther = false
        blocks.forEach((b, j) => {
          if (isObject(b) && b['type'] === 'tool_result') {
            const id = str(b, 'tool_use_id') ?? ''
            if (!open.has(id))
              out.push({
                path: `messages[${i}].content[${j}].tool_use_id`,
                rule: PAIRS,
                message: `tool_result "${id}" answers no tool_use of the previous assistant turn`,
              })
            if (seenOther) out.push({ path: `messages[${i}].content[${j}]`, rule: PAIRS, message: 'tool_result blocks must come first in their user turn' })
            open.delete(id)
          } else seenOther = true
        })
      }
      if (open.size > 0) out.push({ path: `messages[${i}]`, rule: PAIRS, message: `tool_use ids without a tool_result right after: ${[...open].join(', ')}` })
      open = new Set()
      if (role === 'assistant') { for (const b of blocks) if (isObject(b) && b['type'] === 'tool_use') open.add(str(b, 'id') ?? '') }
    })
    if (open.size > 0 && ms.length > 0)
      out.push({ path: `messages[${ms.length - 1}]`, rule: PAIRS, message: `tool_use ids without a tool_result right after: ${[...open].join(', ')}` })
    return out
  },
}

// --- ids and signatures ---

const IDS = 'anthropic/tool-id-format'

const toolIds: Rule = {
  name: IDS,
  check: (request) =>
    messagesOf(request).flatMap((m, i) =>
      blocksOf(m).flatMap((b, j) => {
        const field = isObject(b) && b['type'] === 'tool_use' ? 'id' : isObject(b) && b['type'] === 'tool_result' ? 'tool_use_id' : undefined
        const id = field === undefined ? undefined : str(b, field)
        return field !== undefined && (id === undefined || !ANTHROPIC_ID.test(id))
          ? [{ path: `messages[${i}].content[${j}].${field}`, rule: IDS, message: 'a tool id must match ^[a-zA-Z0-9_-]+$' }]
          : []
      })
    ),
}

const SIGNED = 'anthropic/thinking-signed'

const thinkingSigned: Rule = {
  name: SIGNED,
  check: (request) =>
    messagesOf(request).flatMap((m, i) =>
      blocksOf(m).flatMap((b, j): RequestViolation[] => {
        if (!isObject(b) || (b['type'] !== 'thinking' && b['type'] !== 'redacted_thinking')) return []
        const path = `messages[${i}].content[${j}]`
        if (isObject(m) && m['role'] !== 'assistant') return [{ path, rule: SIGNED, message: 'thinking blocks belong to assistant turns' }]
        const field = b['type'] === 'thinking' ? 'signature' : 'data'
        const v = str(b, field)
        return v === undefined || v === '' ? [{ path: `${path}.${field}`, rule: SIGNED, message: `a ${String(b['type'])} block needs its ${field}` }] : []
      })
    ),
}

/** Anthropic's rules, in the order their fixes run (blank blocks, then the turns they emptied, then the prefill). */
export const anthropicRules: ReadonlyArray<Rule> = [blankText, errorResults, emptyTurns, prefill, toolPairs, toolIds, thinkingSigned]
