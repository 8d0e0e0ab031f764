import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { strToU8, zipSync } from 'fflate'
import { afterAll, describe, expect, it } from 'vitest'
import { EXIT, run } from '../../src/cli/main.ts'
import { type WireApi, wireApis } from '../../src/adapters/vocabulary.ts'
import { checkRequest } from '../../src/adapters/rules.ts'
import { fromChatExportZip } from '../../src/sessions/chat-export-zip.ts'

const fixture = (p: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../fixtures/${p}`, import.meta.url).pathname))
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0))
// the layout of a ChatGPT export as downloaded: conversations.json beside chat.html, user.json and the uploads, named by file id
const CHATGPT_ZIP = zipSync({
  'conversations.json': fixture('chatgpt/conversations.json'),
  'chat.html': strToU8('<html></html>'),
  'user.json': strToU8('{"id":"user-0000","email":"ada@example.org"}'),
  'message_feedback.json': strToU8('[]'),
  'file-7QmXc2LrT9vB4nK1pZs8Wd-invoice.png': PNG,
})
const CLAUDE_ZIP = zipSync({ 'conversations.json': fixture('claude-ai/conversations.json'), 'users.json': strToU8('[]'), 'projects.json': strToU8('[]') })
const PROVIDERS: ReadonlyArray<WireApi> = wireApis

const tmp = mkdtempSync(join(tmpdir(), 'chatfold-zip-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const file = (name: string, bytes: Uint8Array): string => {
  const f = join(tmp, name)
  writeFileSync(f, bytes)
  return f
}
const cli = async (...argv: string[]) => {
  let out = ''
  let err = ''
  const code = await run(argv, { out: (s) => void (out += s), err: (s) => void (err += s), errIsTTY: false })
  return { code, out, err }
}

describe('a chat export read as downloaded', () => {
  it('reads a ChatGPT zip, the image a message points to put in it from the archive', () => {
    const r = fromChatExportZip()(CHATGPT_ZIP)
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    expect(r.right.format).toBe('chatgpt')
    const first = r.right.conversations[0]?.read
    const withImage = first?.messages.find((m) => m.parts.some((p) => p.type === 'image'))
    expect(withImage?.parts[0]).toEqual({ type: 'image', data: PNG, mediaType: 'image/png' })
    expect(JSON.stringify(withImage?.metadata?.['assets'])).toContain('"file":"file-7QmXc2LrT9vB4nK1pZs8Wd-invoice.png"')
    expect(first?.notes).toContain('1 image read from the zip')
  })

  it("puts an image generation's picture in the tool result that answers its call", () => {
    const r = fromChatExportZip()(
      zipSync({ 'conversations.json': fixture('chatgpt/conversations-image-gen.json'), 'file_00000000a1b2c3d4e5f60718293a4b5c-9b8c7d6e.png': PNG }),
    )
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const read = r.right.conversations[0]?.read
    const result = read?.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool_result')
    expect(result).toMatchObject({ type: 'tool_result', name: 't2uay3k.sj1i4kz', content: [{ type: 'image', data: PNG, mediaType: 'image/png' }] })
    expect(read?.notes).toContain('1 image read from the zip')
  })

  it('names an image the zip does not hold', () => {
    const r = fromChatExportZip()(zipSync({ 'conversations.json': fixture('chatgpt/conversations.json') }))
    expect(E.isRight(r) && r.right.conversations[0]?.read.notes).toContain('1 image the zip does not hold, named in metadata.assets')
  })

  it('reads a Claude.ai zip', () => {
    const r = fromChatExportZip()(CLAUDE_ZIP)
    expect(E.isRight(r) && [r.right.format, r.right.conversations.length]).toEqual(['claude-ai', 2])
  })

  it('names what it cannot read', () => {
    expect(fromChatExportZip()(strToU8('not a zip'))).toMatchObject({ _tag: 'Left', left: [{ path: '', expected: 'a zip archive' }] })
    expect(fromChatExportZip()(zipSync({ 'user.json': strToU8('{}') }))).toEqual(
      E.left([{ path: 'conversations.json', expected: 'a file of the archive', actual: 'none' }]),
    )
    expect(fromChatExportZip()(zipSync({ 'conversations.json': strToU8('[{"x":1}]') }))).toEqual(
      E.left([{ path: 'conversations.json', expected: 'a ChatGPT or Claude.ai conversations.json', actual: 'another document' }]),
    )
  })

  it.each(
    [
      ['chatgpt', CHATGPT_ZIP],
      ['claude-ai', CLAUDE_ZIP],
    ] as const,
  )('the command line reads a %s zip: stats, render --format html, convert to every target passing check', async (format, zip) => {
    const f = file(`${format}-export.zip`, zip)
    const stats = await cli('stats', f, '--json', '--encoding', 'heuristic')
    expect(stats.code, stats.err).toBe(EXIT.ok)
    expect(JSON.parse(stats.out)).toMatchObject({ format })
    const page = join(tmp, `${format}.html`)
    const html = await cli('render', f, '--format', 'html', '-o', page)
    expect(html.code, html.err).toBe(EXIT.ok)
    expect(readFileSync(page, 'utf8')).toMatch(/^<!doctype html>/i)
    for (const provider of PROVIDERS) {
      const r = await cli('convert', f, '--to', provider)
      expect(r.code, r.err).toBe(EXIT.ok)
      expect(checkRequest(provider)(JSON.parse(r.out))).toEqual([])
    }
  })
})
