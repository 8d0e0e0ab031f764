/**
 * The history explorer (web/) in headless Chromium with the files real tools write: a Claude Code
 * session, a Codex rollout and a ChatGPT export (and its zip) dropped on the page are detected by
 * the command line's signatures and read as the command line reads them; the conversation view
 * shows an image a tool returned, each reply's cost beside its tokens (an unpriced model named,
 * never shown as $0), and each compaction's receipt where it happened. Screenshots go to
 * out/screenshots/.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { zipSync } from 'fflate'
import type { FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { costLedger } from '../../src/cost/ledger.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { makeMessage, textMessage } from '../../src/message/message.ts'
import { text as textPart } from '../../src/message/part-make.ts'
import { readSessionFile, type SessionFile } from '../../src/sessions/session-file.ts'
import { loadHistory } from '../../src/cli/_load.ts'
import { root } from '../../web/serve.ts'
import { type ExplorerPage, openExplorerPage, shots } from './support/explorer-page.ts'

const fixtures = join(root, 'test', 'fixtures')
const CLAUDE_CODE = 'claude-code/5e0a7c3d-91b2-4f6e-8d14-a2c6b9e07f35.jsonl'
const CODEX = 'codex/rollout-2026-03-14T09-12-04-019a7c2e-5d41-7a90-8c3e-2f6b1d0e9a47.jsonl'
const CHATGPT = 'chatgpt/conversations.json'

/** A fixture read as the command line reads it, independently of the page. */
const readHere = (bytes: Uint8Array): SessionFile => {
  const r = readSessionFile({})(bytes)
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}
const usd = (n: number): string => (n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`)

describe('the history explorer with the files agent tools and chat apps write', () => {
  let explorer: ExplorerPage | undefined
  let url: string
  let page: Page
  let consoleErrors: string[] = []

  beforeAll(async () => {
    explorer = await openExplorerPage('chatfold-explorer-formats-', { width: 1000, height: 1400 })
    ;({ url, page, consoleErrors } = explorer)
    await page.goto(url)
    await page.waitForSelector('body[data-state="empty"]')
  })

  afterAll(() => explorer?.close())

  const text = async (selector: string): Promise<string> => (await page.textContent(selector)) ?? ''
  const frame = (): FrameLocator => page.frameLocator('#conversation-frame')
  /** Drops a file on the page's picker and waits until it is loaded (or refused). */
  const drop = async (name: string, bytes: Uint8Array, mimeType = 'application/json'): Promise<void> => {
    await page.setInputFiles('#file', { name, mimeType, buffer: Buffer.from(bytes) })
    await page.waitForFunction(
      (n) =>
        document.body.dataset['busy'] === undefined &&
        (document.getElementById('summary-title')?.textContent?.startsWith(n) === true ||
          document.getElementById('status')?.classList.contains('error') === true),
      name,
      { timeout: 90_000 },
    )
    expect((await page.getAttribute('#status', 'class')) ?? '', await text('#status')).not.toContain('error')
  }
  /** Opens the conversation view and waits for its page to be in the frame. */
  const readConversation = async (): Promise<void> => {
    await page.click('#conversation')
    await page.waitForSelector('#conversation-view:not([hidden])')
    await frame().locator('main').waitFor()
  }
  const fixture = (path: string): Uint8Array => new Uint8Array(readFileSync(join(fixtures, path)))

  it('opens a Claude Code session: its format, every message, the image a tool returned, each reply priced', async () => {
    const bytes = fixture(CLAUDE_CODE)
    const here = readHere(bytes)
    await drop('session.jsonl', bytes, 'application/jsonl')
    expect(await text('#summary-title')).toMatch(
      new RegExp(`^session\\.jsonl \\(Claude Code session file\\): ${here.messages.length} messages, [\\d,]+ tokens$`),
    )
    // the cost of the whole session, as the cost ledger prices it, beside its model
    const ledger = costLedger({})(here.messages)
    expect(ledger.total).toBeGreaterThan(0)
    expect(await text('#summary-cost')).toBe(`cost ${usd(ledger.total)} (claude-opus-4-6 ${usd(ledger.total)}) · prices of ${ledger.prices.taken}`)

    await readConversation()
    // the Read of a PNG: its result shows the image itself, from its bytes
    const img = frame().locator('details.tool .result img')
    expect(await img.count()).toBeGreaterThan(0)
    expect(await img.first().getAttribute('src')).toMatch(/^data:image\/png;base64,iVBORw0KGgo/)
    expect(await img.first().evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0)).toBe(true)
    // each priced reply shows its cost beside its tokens; the turn sums them
    const costs = await frame().locator('.msg.assistant header .cost').allTextContents()
    expect(costs.length).toBe(ledger.lines.length)
    expect(costs).toEqual(ledger.lines.map((l) => (l.charge.total >= 1 ? `$${l.charge.total.toFixed(2)}` : `$${l.charge.total.toFixed(4)}`)))
    expect(await frame().locator('.turn .turn-label .turn-cost').first().textContent()).toBe(usd(ledger.total))
    expect(await frame().locator('.msg.assistant header .usage').first().textContent()).toMatch(/^in 4 · out 30 · cache read 18,000$/)
    await page.screenshot({ path: join(shots, 'explorer-claude-code.png'), fullPage: true })
  })

  it('opens a Claude Code session dropped with its sub-agent transcript: the sidechain read with it, as the command line reads it', async () => {
    const session = 'claude-code/7c2e4b19-5a83-4f0d-b6e1-93d0a8f25c47'
    const cli = loadHistory(join(fixtures, `${session}.jsonl`), { subagents: 'inline' })
    expect(cli.messages.some((m) => m.metadata?.['subagent'] !== undefined)).toBe(true)
    await page.setInputFiles('#file', [
      { name: 'session.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(fixture(`${session}.jsonl`)) },
      { name: 'agent-a3f9d21.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(fixture(`${session}/subagents/agent-a3f9d21.jsonl`)) },
    ])
    await page.waitForFunction(
      () => document.body.dataset['busy'] === undefined && document.getElementById('summary-title')?.textContent?.startsWith('session.jsonl') === true,
      undefined,
      {
        timeout: 90_000,
      },
    )
    expect(await text('#summary-title')).toMatch(
      new RegExp(`^session\\.jsonl \\(Claude Code session file\\): ${cli.messages.length} messages, [\\d,]+ tokens$`),
    )
    expect(await text('#notes')).toContain('read 1 sub-agent transcript dropped with it: agent-a3f9d21.jsonl')
    expect(await text('#notes')).not.toContain('were not dropped with it')
  })

  it("opens a Cline task dropped on the page with its ui_messages.json, as the command line reads the task's folder", async () => {
    const task = 'cline/1767949200000'
    const cli = loadHistory(join(fixtures, task, 'api_conversation_history.json'), {})
    // the ui messages first: the page tells the task's history from what it reads beside it by name, not by order
    const files = ['ui_messages.json', 'api_conversation_history.json'].map((name) => ({ name, body: readFileSync(join(fixtures, task, name), 'utf8') }))
    await page.evaluate((files) => {
      const dt = new DataTransfer()
      for (const f of files) dt.items.add(new File([f.body], f.name, { type: 'application/json' }))
      document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }))
    }, files)
    await page.waitForFunction(
      () =>
        document.body.dataset['busy'] === undefined &&
        document.getElementById('summary-title')?.textContent?.startsWith('api_conversation_history.json') === true,
      undefined,
      { timeout: 90_000 },
    )
    expect(await text('#summary-title')).toMatch(new RegExp(`^api_conversation_history\\.json \\([^)]+\\): ${cli.messages.length} messages, [\\d,]+ tokens$`))
    expect(await text('#notes')).toContain('read ui_messages.json dropped with it')
  })

  it('opens a Codex rollout: the compaction it recorded marked, with what it replaced and its cost', async () => {
    const bytes = fixture(CODEX)
    const here = readHere(bytes)
    await drop('rollout.jsonl', bytes, 'application/jsonl')
    expect(await text('#summary-title')).toMatch(
      new RegExp(`^rollout\\.jsonl \\(OpenAI Codex CLI rollout\\): ${here.messages.length} messages, [\\d,]+ tokens$`),
    )
    expect(await text('#notes')).toContain(`${here.archive.length} messages a compaction recorded in the file replaced are kept aside`)
    expect(await text('#summary-cost')).toMatch(/^cost \$\d+\.\d{4} \(gpt-5-codex \$\d+\.\d{4}\) · prices of /)
    await readConversation()
    const compaction = frame().locator('section.compaction')
    expect(await compaction.count()).toBe(1)
    // its receipt lists the messages it replaced (the reader's archive), and their tool calls
    expect(here.archive.length).toBeGreaterThan(0)
    expect(await compaction.locator('details.receipt .receipt-summarised .head').textContent()).toBe(`Summarised ${here.archive.length}`)
    expect(await compaction.locator('details.receipt .receipt-summarised .ids code').allTextContents()).toEqual(here.archive.slice(0, 40).map((m) => m.id))
    const said = here.messages.flatMap((
      m,
    ) => (m.role === 'user' && m.metadata?.['compaction'] === undefined ? m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []))
    expect(said.length).toBeGreaterThan(0)
    for (const t of said) expect(await frame().locator('main').textContent()).toContain(t.trim().split('\n')[0])
  })

  it('opens a ChatGPT export and its zip as downloaded, the same conversations', async () => {
    const bytes = fixture(CHATGPT)
    const here = readHere(bytes)
    await drop('conversations.json', bytes)
    const title = await text('#summary-title')
    expect(title).toMatch(new RegExp(`^conversations\\.json \\(ChatGPT data export\\): ${here.messages.length} messages, [\\d,]+ tokens$`))
    await drop('export.zip', zipSync({ 'conversations.json': bytes }), 'application/zip')
    expect(await text('#summary-title')).toBe(title.replace('conversations.json', 'export.zip'))
    await readConversation()
    // the code the model ran is a tool call with its result, under the reply
    const calls = here.messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool_call' ? [p.name] : [])))
    expect(calls.length).toBeGreaterThan(0)
    expect(await frame().locator('details.tool .tool-name').allTextContents()).toEqual(expect.arrayContaining([...new Set(calls)]))
  })

  it('names a model the price table lacks, and never shows its reply as costing $0', async () => {
    const reply = makeMessage({ role: 'assistant', parts: [textPart('Done.')], model: 'in-house-7b', metadata: { usage: { input: 1200, output: 80 } } })
    await drop('in-house.jsonl', new TextEncoder().encode(toJSONL([textMessage('user', 'Summarise the ticket.'), reply])), 'application/jsonl')
    expect(await text('#summary-cost')).toMatch(/^unpriced: in-house-7b · prices of /)
    await readConversation()
    const cost = frame().locator('.msg.assistant header .cost')
    expect(await cost.textContent()).toBe('unpriced: in-house-7b is not in the price table')
    expect(await cost.getAttribute('class')).toContain('unpriced')
    expect(await frame().locator('.turn-cost').textContent()).toBe('unpriced: in-house-7b')
    expect(await frame().locator('main').textContent()).not.toMatch(/\$0(\.0+)?\b/)
  })

  it("shows a compaction's receipt at its summary: what was summarised, the tool calls that left, the artifact ledger", async () => {
    await page.click('#sample')
    await page.waitForSelector('body[data-state="load"]:not([data-busy])', { timeout: 90_000 })
    // a prune first: each output it cleared is marked under its result, with its tokens before and after
    await page.click('#prune')
    await page.waitForSelector('body[data-state="prune"]:not([data-busy])', { timeout: 90_000 })
    const pruned = Number(/^Pruned ([\d,]+) tool results/.exec(await text('#last-action'))?.[1]?.replaceAll(',', ''))
    expect(pruned).toBeGreaterThan(0)
    await readConversation()
    const cleared = await frame().locator('.result .cleared').allTextContents()
    expect(cleared.length).toBeGreaterThan(0)
    expect(cleared.length).toBeLessThanOrEqual(pruned)
    for (const c of cleared) expect(c).toMatch(/^(?!tool )\S+ \S+ result cleared: [\d,]+ → [\d,]+ tokens$/)
    await page.click('#compact')
    await page.waitForSelector('body[data-state="compact"]:not([data-busy])', { timeout: 90_000 })
    const done = /^Compacted: ([\d,]+) messages summarised/.exec(await text('#last-action'))
    expect(done).not.toBeNull()
    const summarised = done?.[1] as string
    await readConversation()
    const receipt = frame().locator('section.compaction details.receipt')
    expect(await receipt.count()).toBe(1)
    expect(await receipt.locator('summary').textContent()).toMatch(new RegExp(`^Receipt · ${summarised} summarised · [\\d,]+ tool calls`))
    expect(await receipt.locator('.receipt-summarised .head').textContent()).toBe(`Summarised ${summarised}`)
    const ids = await receipt.locator('.receipt-summarised .ids code').allTextContents()
    expect(ids.length).toBe(Math.min(40, Number(summarised.replaceAll(',', ''))))
    // none of the summarised messages is in the history any more
    for (const id of ids.slice(0, 5)) expect(await frame().locator(`[id="m-${id}"]`).count()).toBe(0)
    expect(await receipt.locator('.receipt-calls .ids code').count()).toBeGreaterThan(0)
    expect(await receipt.locator('.ledger .head').first().textContent()).toBe('Artifact ledger (kept with the summary)')
    await receipt.scrollIntoViewIfNeeded()
    const path = join(shots, 'explorer-receipt.png')
    await page.screenshot({ path, fullPage: true })
    expect(readFileSync(path).subarray(1, 4).toString()).toBe('PNG')
    expect(consoleErrors).toEqual([])
  })
})
