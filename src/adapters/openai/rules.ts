/**
 * OpenAI request rules, from the OpenAPI document and the documented 400s. Chat Completions
 * (`{ messages }`): a file sent by bytes has a filename, an assistant turn's tool calls are answered
 * by tool messages right after it. Responses (`{ input }`): the same for `input_file`, item ids are
 * unique (a reasoning item with several summaries goes out as the one item it was), every
 * `function_call` (or `custom_tool_call`) has its output and no output comes before its call.
 *
 * @module
 */
import { arr, dataUrlType, filenameFor, noteFix, type Obj, type RequestViolation, type Rule, str } from '../rules-kit.ts'
import { isObject } from '../../internal/object.ts'

// --- Chat Completions ---

const CHAT_FILE = 'openai-chat/file-filename'

const needsChatName = (p: unknown): boolean =>
  isObject(p) && p['type'] === 'file' && isObject(p['file']) && typeof p['file']['file_data'] === 'string' && p['file']['filename'] === undefined

const chatFile: Rule = {
  name: CHAT_FILE,
  check: (request) =>
    arr(request['messages']).flatMap((m, i) =>
      isObject(m)
        ? arr(m['content']).flatMap((p, j) =>
          needsChatName(p) ? [{ path: `messages[${i}].content[${j}].file.filename`, rule: CHAT_FILE, message: 'a file sent by bytes needs a filename' }] : []
        )
        : []
    ),
  fix: (request, context) => {
    const ms = arr(request['messages'])
    if (!ms.some((m) => isObject(m) && arr(m['content']).some(needsChatName))) return request
    return {
      ...request,
      messages: ms.map((m, i) =>
        isObject(m) && arr(m['content']).some(needsChatName)
          ? {
            ...m,
            content: arr(m['content']).map((p, j) => {
              if (!needsChatName(p)) return p
              const file = (p as Obj)['file'] as Obj
              noteFix(context, CHAT_FILE, `messages[${i}].content[${j}].file.filename`, 'filled')
              return { ...(p as Obj), file: { ...file, filename: filenameFor(dataUrlType(String(file['file_data'])) ?? '') } }
            }),
          }
          : m
      ),
    }
  },
}

const CHAT_PAIRS = 'openai-chat/tool-messages-follow-calls'

const chatPairs: Rule = {
  name: CHAT_PAIRS,
  check: (request) => {
    const out: RequestViolation[] = []
    let open = new Set<string>()
    const ms = arr(request['messages'])
    ms.forEach((m, i) => {
      const role = isObject(m) ? m['role'] : undefined
      if (role === 'tool') {
        const id = str(m, 'tool_call_id') ?? ''
        if (!open.has(id))
          out.push({
            path: `messages[${i}].tool_call_id`,
            rule: CHAT_PAIRS,
            message: `tool message "${id}" answers no tool call of the assistant message before it`,
          })
        open.delete(id)
        return
      }
      if (open.size > 0)
        out.push({ path: `messages[${i}]`, rule: CHAT_PAIRS, message: `tool calls without a tool message before this one: ${[...open].join(', ')}` })
      open = new Set(role === 'assistant' && isObject(m) ? arr(m['tool_calls']).map((c) => str(c, 'id') ?? '') : [])
    })
    if (open.size > 0) out.push({ path: `messages[${ms.length - 1}]`, rule: CHAT_PAIRS, message: `tool calls without a tool message: ${[...open].join(', ')}` })
    return out
  },
}

const CHAT_IDS = 'openai-chat/tool-call-id-format'

const chatIds: Rule = {
  name: CHAT_IDS,
  check: (request) =>
    arr(request['messages']).flatMap((m, i) => [
      ...(isObject(m) && m['role'] === 'tool' && (str(m, 'tool_call_id') ?? '') === ''
        ? [{ path: `messages[${i}].tool_call_id`, rule: CHAT_IDS, message: 'a tool call id is a non-empty string' }]
        : []),
      ...(isObject(m) ? arr(m['tool_calls']) : []).flatMap((c, j) =>
        (str(c, 'id') ?? '') === '' ? [{ path: `messages[${i}].tool_calls[${j}].id`, rule: CHAT_IDS, message: 'a tool call id is a non-empty string' }] : []
      ),
    ]),
}

/** Chat Completions' rules. */
export const openAIChatRules: ReadonlyArray<Rule> = [chatFile, chatPairs, chatIds]

// --- Responses ---

const itemsOf = (request: Obj): ReadonlyArray<unknown> => arr(request['input'])

const RESPONSES_FILE = 'openai-responses/file-filename'

const needsResponsesName = (p: unknown): boolean =>
  isObject(p) && p['type'] === 'input_file' && typeof p['file_data'] === 'string' && p['filename'] === undefined

const responsesFile: Rule = {
  name: RESPONSES_FILE,
  check: (request) =>
    itemsOf(request).flatMap((m, i) =>
      isObject(m)
        ? arr(m['content']).flatMap((p, j) =>
          needsResponsesName(p) ? [{ path: `input[${i}].content[${j}].filename`, rule: RESPONSES_FILE, message: 'a file sent by bytes needs a filename' }] : []
        )
        : []
    ),
  fix: (request, context) => {
    const items = itemsOf(request)
    if (!items.some((m) => isObject(m) && arr(m['content']).some(needsResponsesName))) return request
    return {
      ...request,
      input: items.map((m, i) =>
        isObject(m) && arr(m['content']).some(needsResponsesName)
          ? {
            ...m,
            content: arr(m['content']).map((p, j) => {
              if (!needsResponsesName(p)) return p
              noteFix(context, RESPONSES_FILE, `input[${i}].content[${j}].filename`, 'filled')
              return { ...(p as Obj), filename: filenameFor(dataUrlType(String((p as Obj)['file_data'])) ?? '') }
            }),
          }
          : m
      ),
    }
  },
}

const UNIQUE = 'openai-responses/unique-item-ids'

/**
 * Two reasoning items of one id as the one item they are parts of (summaries in order, the
 * encrypted content either carries); `undefined` when they are not two parts of one item.
 */
export const joinReasoning = (previous: unknown, item: unknown): Obj | undefined => {
  if (!isObject(item) || item['type'] !== 'reasoning' || !isObject(previous) || previous['type'] !== 'reasoning') return undefined
  const id = str(item, 'id')
  if (id === undefined || id !== str(previous, 'id')) return undefined
  const encrypted = str(previous, 'encrypted_content') ?? str(item, 'encrypted_content')
  return { ...previous, summary: [...arr(previous['summary']), ...arr(item['summary'])], ...(encrypted === undefined ? {} : { encrypted_content: encrypted }) }
}

const uniqueIds: Rule = {
  name: UNIQUE,
  check: (request) => {
    const seen = new Set<string>()
    return itemsOf(request).flatMap((item, i) => {
      const id = str(item, 'id')
      if (id === undefined) return []
      if (seen.has(id)) return [{ path: `input[${i}].id`, rule: UNIQUE, message: `duplicate item id "${id}"` }]
      seen.add(id)
      return []
    })
  },
  // reasoning items of one id next to each other are the summaries of one item: join them back
  fix: (request, context) => {
    const items = itemsOf(request)
    const out: unknown[] = []
    let changed = false
    items.forEach((item, i) => {
      const joined = joinReasoning(out[out.length - 1], item)
      if (joined !== undefined) {
        out[out.length - 1] = joined
        noteFix(context, UNIQUE, `input[${i}]`, 'merged')
        changed = true
      } else out.push(item)
    })
    return changed ? { ...request, input: out } : request
  },
}

const RESPONSES_PAIRS = 'openai-responses/outputs-follow-calls'

const responsesPairs: Rule = {
  name: RESPONSES_PAIRS,
  check: (request) => {
    const out: RequestViolation[] = []
    const calls = new Map<string, number>()
    const answered = new Set<string>()
    itemsOf(request).forEach((item, i) => {
      const type = isObject(item) ? item['type'] : undefined
      const id = str(item, 'call_id') ?? ''
      if (type === 'function_call' || type === 'custom_tool_call') calls.set(id, i)
      else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
        if (!calls.has(id)) out.push({ path: `input[${i}].call_id`, rule: RESPONSES_PAIRS, message: `no function call "${id}" before this output` })
        answered.add(id)
      }
    })
    for (const [id, i] of calls)
      if (!answered.has(id)) out.push({ path: `input[${i}]`, rule: RESPONSES_PAIRS, message: `no tool output for function call "${id}"` })
    return out
  },
}

const RESPONSES_IDS = 'openai-responses/call-id-format'

/** Whether a call id is one the Responses API takes: 1 to 64 characters. */
export const isResponsesCallId = (id: string): boolean => id.length >= 1 && id.length <= 64

const responsesIds: Rule = {
  name: RESPONSES_IDS,
  check: (request) =>
    itemsOf(request).flatMap((item, i) => {
      const type = isObject(item) ? item['type'] : undefined
      if (type !== 'function_call' && type !== 'function_call_output' && type !== 'custom_tool_call' && type !== 'custom_tool_call_output') return []
      const id = str(item, 'call_id')
      return id === undefined || !isResponsesCallId(id)
        ? [{ path: `input[${i}].call_id`, rule: RESPONSES_IDS, message: 'a call id is a string of 1 to 64 characters' }]
        : []
    }),
}

/** Responses' rules. */
export const openAIResponsesRules: ReadonlyArray<Rule> = [responsesFile, uniqueIds, responsesPairs, responsesIds]
