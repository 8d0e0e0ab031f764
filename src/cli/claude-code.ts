/**
 * Claude Code's session files (`~/.claude/projects/<project>/<session>.jsonl`) read as a history.
 *
 * Each line is one JSON record. Records of `type` `user` and `assistant` carry an Anthropic
 * Messages `message` (`role`, `content` as a string or blocks: `text`, `thinking`, `redacted_thinking`,
 * `tool_use`, `tool_result`, `image`), with `uuid`, `parentUuid`, `timestamp`, `sessionId`. One
 * assistant reply is written as several records sharing `message.id` (a block each); they become one
 * message. A user record whose blocks are tool results becomes one tool message per result. Records
 * of other types (`summary`, `system`, `file-history-snapshot`, …) and side-chain records (a
 * sub-agent's turns) are skipped and counted.
 *
 * @module
 */
import * as E from 'fp-ts/Either'
import { type DecodeFailure, decodeIssue } from '../failure.ts'
import type { Message, Messages } from '../message.ts'
import type { Part } from '../part.ts'
import { isObject } from '../internal/object.ts'

/** What reading a session file gave: the history and how many records were skipped, by type. */
export type ClaudeCodeSession = { readonly messages: Messages; readonly skipped: Readonly<Record<string, number>> }

type Rec = Readonly<Record<string, unknown>>
const str = (u: unknown): string | undefined => (typeof u === 'string' ? u : undefined)

/** Whether a parsed line looks like a Claude Code session record. */
export const isClaudeCodeRecord = (u: unknown): boolean =>
  isObject(u) && typeof u['type'] === 'string' && ('sessionId' in u || 'uuid' in u || 'leafUuid' in u || 'parentUuid' in u) && !('parts' in u)

const bytes = (b64: string): Uint8Array => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))

const imagePart = (b: Rec): Part | undefined => {
  const src = b['source']
  if (!isObject(src)) return undefined
  if (src['type'] === 'base64' && typeof src['data'] === 'string') {
    const mediaType = str(src['media_type'])
    return { type: 'image', data: bytes(src['data']), ...(mediaType === undefined ? {} : { mediaType }) } as Part
  }
  if (src['type'] === 'url' && typeof src['url'] === 'string') return { type: 'image', url: src['url'] } as Part
  return undefined
}

const resultText = (c: unknown): string => {
  if (typeof c === 'string') return c
  if (!Array.isArray(c)) return c === undefined || c === null ? '' : JSON.stringify(c)
  return c
    .map((b: unknown) => (isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string' ? b['text'] : isObject(b) && b['type'] === 'image' ? '[image]' : ''))
    .filter((s) => s !== '')
    .join('\n')
}

const line = (n: number, path: string, expected: string, actual: unknown): DecodeFailure => decodeIssue(`line ${n}${path}`, expected, actual)

/**
 * Reads a Claude Code session file. Left: the first line that is not JSON or whose message has no
 * usable content, by line number.
 *
 * @example
 * import { fromClaudeCode } from './claude-code.ts'
 * fromClaudeCode('{"type":"user","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"Hi"}}')
 *
 * @since 0.2.0
 * @category adapters
 */
export const fromClaudeCode = (text: string): E.Either<DecodeFailure, ClaudeCodeSession> => {
  const out: Message[] = []
  const skipped: Record<string, number> = {}
  const skip = (why: string): void => void (skipped[why] = (skipped[why] ?? 0) + 1)
  // the open assistant reply: records sharing message.id merge into it
  let reply: { id: string; parts: Part[]; at: number } | undefined
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? '').trim()
    if (raw === '') continue
    const n = i + 1
    let rec: unknown
    try {
      rec = JSON.parse(raw)
    } catch (e) {
      return E.left(line(n, '', 'a JSON record', e instanceof Error ? e.message : String(e)))
    }
    if (!isObject(rec) || typeof rec['type'] !== 'string') return E.left(line(n, '.type', 'a record type', rec))
    const type = rec['type']
    if (type !== 'user' && type !== 'assistant') {
      skip(type)
      continue
    }
    if (rec['isSidechain'] === true) {
      skip('sidechain')
      continue
    }
    const msg = rec['message']
    if (!isObject(msg)) return E.left(line(n, '.message', 'an object', msg))
    const id = str(rec['uuid']) ?? `line-${n}`
    const createdAt = str(rec['timestamp'])
    const at = createdAt !== undefined && !Number.isNaN(Date.parse(createdAt)) ? { createdAt: new Date(createdAt).toISOString() } : {}
    const content = msg['content']
    const blocks: ReadonlyArray<unknown> = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : []
    if (typeof content !== 'string' && !Array.isArray(content)) return E.left(line(n, '.message.content', 'a string or an array of blocks', content))

    if (type === 'assistant') {
      const parts: Part[] = []
      for (const b of blocks) {
        if (!isObject(b)) continue
        switch (b['type']) {
          case 'text':
            if (typeof b['text'] === 'string' && b['text'] !== '') parts.push({ type: 'text', text: b['text'] })
            break
          case 'thinking': {
            const signature = str(b['signature'])
            parts.push({ type: 'reasoning', text: str(b['thinking']) ?? '', ...(signature === undefined || signature === '' ? {} : { signature }) } as Part)
            break
          }
          case 'redacted_thinking':
            parts.push({ type: 'reasoning', text: '', signature: str(b['data']) ?? '', redacted: true } as Part)
            break
          case 'tool_use':
            parts.push({ type: 'tool_call', id: str(b['id']) ?? `call-${n}`, name: str(b['name']) ?? 'tool', arguments: JSON.stringify(b['input'] ?? {}), status: 'complete' } as Part)
            break
          case 'image': {
            const p = imagePart(b)
            if (p !== undefined) parts.push(p)
            break
          }
        }
      }
      const msgId = str(msg['id'])
      const stop = str(msg['stop_reason'])
      const model = str(msg['model'])
      const finishPart: Part[] = stop === undefined ? [] : [{ type: 'finish', reason: stop }]
      if (reply !== undefined && msgId !== undefined && reply.id === msgId) {
        const prev = out[reply.at] as Message
        const kept = prev.parts.filter((p) => p.type !== 'finish')
        out[reply.at] = { ...prev, parts: [...kept, ...parts, ...finishPart] }
        continue
      }
      reply = msgId === undefined ? undefined : { id: msgId, parts, at: out.length }
      out.push({
        id,
        role: 'assistant',
        kind: 'normal',
        parts: [...parts, ...finishPart],
        ...at,
        ...(model === undefined ? {} : { model }),
        provider: 'anthropic',
      } as Message)
      continue
    }

    reply = undefined
    const userParts: Part[] = []
    let r = 0
    for (const b of blocks) {
      if (!isObject(b)) continue
      if (b['type'] === 'tool_result') {
        out.push({
          id: r === 0 ? id : `${id}.${r}`,
          role: 'tool',
          kind: 'normal',
          parts: [{ type: 'tool_result', toolCallId: str(b['tool_use_id']) ?? '', content: resultText(b['content']), isError: b['is_error'] === true }],
          ...at,
        } as Message)
        r++
      } else if (b['type'] === 'text' && typeof b['text'] === 'string') userParts.push({ type: 'text', text: b['text'] })
      else if (b['type'] === 'image') {
        const p = imagePart(b)
        if (p !== undefined) userParts.push(p)
      }
    }
    if (userParts.length > 0) {
      const kind = rec['isMeta'] === true || rec['isCompactSummary'] === true ? 'synthetic' : 'normal'
      out.push({ id: r === 0 ? id : `${id}.${r}`, role: 'user', kind, parts: userParts, ...at } as Message)
    }
  }
  return E.right({ messages: out, skipped })
}
