/**
 * AI SDK `ModelMessage` rules (`{ messages }`), from the SDK's prompt standardisation: every tool
 * call (not executed by the provider) is answered by a tool result before the next user or system
 * message and before the prompt ends, and a system message's content is a string.
 *
 * @module
 */
import { arr, noteFix, type Obj, type RequestViolation, type Rule } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

const PAIRS = 'ai-sdk/results-before-user-or-system'

/** The tool calls left open at each message: `[index, open ids]` where a user or system message meets open calls. */
const openCalls = (
  ms: ReadonlyArray<unknown>,
): { readonly blocked: ReadonlyArray<readonly [number, ReadonlyArray<string>]>; readonly open: ReadonlyArray<string> } => {
  const open = new Set<string>()
  const blocked: Array<readonly [number, ReadonlyArray<string>]> = []
  ms.forEach((m, i) => {
    if (!isObject(m)) return
    const content = arr(m['content'])
    if (m['role'] === 'assistant') {
      for (const p of content)
        if (isObject(p) && p['type'] === 'tool-call' && p['providerExecuted'] !== true && typeof p['toolCallId'] === 'string') open.add(p['toolCallId'])
    } else if (m['role'] === 'tool') {
      for (const p of content) if (isObject(p) && p['type'] === 'tool-result' && typeof p['toolCallId'] === 'string') open.delete(p['toolCallId'])
    } else if (open.size > 0) blocked.push([i, [...open]])
  })
  return { blocked, open: [...open] }
}

const pairs: Rule = {
  name: PAIRS,
  check: (request) => {
    const ms = arr(request['messages'])
    const { blocked, open } = openCalls(ms)
    const out: RequestViolation[] = blocked.map(([i, ids]) => ({
      path: `messages[${i}]`,
      rule: PAIRS,
      message: `tool result is missing for tool call(s) ${ids.join(', ')} before this ${String((ms[i] as Obj)['role'])} message`,
    }))
    if (open.length > 0) out.push({ path: `messages[${ms.length - 1}]`, rule: PAIRS, message: `tool result is missing for tool call(s) ${open.join(', ')}` })
    return out
  },
  // a system message standing among a call's results moves to right after the results
  fix: (request, context) => {
    const ms = arr(request['messages'])
    if (!openCalls(ms).blocked.some(([i]) => isObject(ms[i]) && (ms[i] as Obj)['role'] === 'system')) return request
    const out: unknown[] = []
    let held: unknown[] = []
    const open = new Set<string>()
    ms.forEach((m, i) => {
      if (!isObject(m)) return void out.push(m)
      const content = arr(m['content'])
      if (m['role'] === 'system' && open.size > 0) {
        held.push(m)
        noteFix(context, PAIRS, `messages[${i}]`, 'moved')
        return
      }
      if (m['role'] === 'tool') {
        out.push(m)
        for (const p of content) if (isObject(p) && p['type'] === 'tool-result' && typeof p['toolCallId'] === 'string') open.delete(p['toolCallId'])
        if (open.size === 0) {
          out.push(...held)
          held = []
        }
        return
      }
      out.push(...held)
      held = []
      if (m['role'] === 'assistant') {
        for (const p of content)
          if (isObject(p) && p['type'] === 'tool-call' && p['providerExecuted'] !== true && typeof p['toolCallId'] === 'string') open.add(p['toolCallId'])
      } else open.clear()
      out.push(m)
    })
    out.push(...held)
    return { ...request, messages: out }
  },
}

const SYSTEM = 'ai-sdk/system-content-string'

const systemString: Rule = {
  name: SYSTEM,
  check: (request) =>
    arr(request['messages']).flatMap((m, i) =>
      isObject(m) && m['role'] === 'system' && typeof m['content'] !== 'string'
        ? [{ path: `messages[${i}].content`, rule: SYSTEM, message: 'a system message holds a string' }]
        : []
    ),
}

/** The AI SDK's rules. */
export const aiSdkRules: ReadonlyArray<Rule> = [pairs, systemString]
