/**
 * `npm run bench readback`: reading pruned tool output back through the pointers its placeholders
 * carry, on the 20,000-message bench history pruned as a session would (protect 40,000 tokens):
 * one output read back from the history in memory (as it is, and prepared once by `indexHistory`),
 * from the history kept as a JSONL session file (the file read from disk, then only the lines naming
 * the call decoded; the read and the lookup timed apart; and through the file's index of where each
 * output's lines lie, positioned reads only), and a search over the 20,000 messages (as they are,
 * and over the index, with the ratios between them). Each figure is one operation, the median over
 * the pointers read (a different one each run, oldest to newest) or over the queries. Targets: under
 * 2 ms, 20 ms and 20 ms. The chat store is not a source here: a chat message's content has no form
 * for tool calls and results (`toChatContentNoted` names what it leaves out); the framework
 * sessions keep their outputs in message metadata, read back from the history they give, i.e. in
 * memory as above.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/Either'
import { toJSONL } from '../../src/history/codec.ts'
import { forSave } from '../../src/history/views.ts'
import { pointersOf } from '../../src/history/pointer.ts'
import { pruneToolResults } from '../../src/history/prune.ts'
import { readBack } from '../../src/readback/read-back.ts'
import { readBackFromJSONL } from '../../src/readback/read-back-jsonl.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import { searchHistory } from '../../src/readback/search-history.ts'
import { indexHistory } from '../../src/readback/history-index.ts'
import { indexHistoryFile, readBackFromFile } from '../../src/node/read-back-file.ts'
import { fileStorage } from '../../src/node/file-storage.ts'
import { openDurableStore } from '../../src/store/durable.ts'
import { chatStoreSession, storeChatLog } from '../../src/openai-agents/mod.ts'
import type { AgentInputItem } from '@openai/agents'
import type { Messages } from '../../src/message/message.ts'
import { benchHistory, ms, ratio, stats, table } from './lib.ts'

/** Times `await fn(i)` for `runs` values of `i`, after two untimed calls; milliseconds. */
const timedAsync = async (runs: number, fn: (i: number) => Promise<unknown>): Promise<ReturnType<typeof stats>> => {
  await fn(0)
  await fn(1)
  const xs: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn(i)
    xs.push(performance.now() - t0)
  }
  return stats(xs)
}

/** Times `fn(i)` for `runs` values of `i`, after two untimed calls; milliseconds. */
const timed = (runs: number, fn: (i: number) => unknown): ReturnType<typeof stats> => {
  fn(0)
  fn(1)
  const xs: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    fn(i)
    xs.push(performance.now() - t0)
  }
  return stats(xs)
}

export default async (): Promise<void> => {
  const history = benchHistory()
  const pruned = pruneToolResults({ protectTokens: 40_000 })(history)
  const refs = pruned.flatMap(pointersOf).map(toPointerRef)
  const pick = (i: number, n: number): string => refs[Math.floor((i * (refs.length - 1)) / Math.max(1, n - 1))] as string
  const check = <A>(r: E.Either<unknown, A>): A => {
    if (E.isLeft(r)) throw new Error(`read-back failed: ${JSON.stringify(r.left)}`)
    return r.right
  }

  const RUNS = 41
  const memory = timed(RUNS, (i) => check(readBack(pick(i, RUNS))(history)))
  const build = timed(5, () => indexHistory(history))
  const index = indexHistory(history)
  const fromIndex = timed(RUNS, (i) => check(readBack(pick(i, RUNS))(index)))

  const dir = mkdtempSync(join(tmpdir(), 'chatfold-readback-'))
  const file = join(dir, 'session.jsonl')
  writeFileSync(file, toJSONL(forSave(history)))
  const size = readFileSync(file).length
  const fromFile = timed(RUNS, (i) => check(readBackFromJSONL(pick(i, RUNS))(readFileSync(file, 'utf8'))))
  const readOnly = timed(RUNS, () => readFileSync(file, 'utf8'))
  const text = readFileSync(file, 'utf8')
  const fromText = timed(RUNS, (i) => check(readBackFromJSONL(pick(i, RUNS))(text)))
  const indexFile = await timedAsync(3, async () => check(await indexHistoryFile(file)))
  const fileIndex = check(await indexHistoryFile(file))
  const fromFileIndex = await timedAsync(RUNS, async (i) => check(await readBackFromFile(pick(i, RUNS))(fileIndex)))
  // every pointer read back from the file through the index, byte for byte as the history holds it
  for (const ref of refs) {
    const a = check(await readBackFromFile(ref)(fileIndex))
    const b = check(readBack(ref)(index))
    if (a.text !== b.text || a.totalBytes !== b.totalBytes) throw new Error(`read-back from the file differs for ${ref}`)
  }
  // the chat store's file backend: the history's tool turns as an Agents SDK session (its items
  // kept as they came, in message metadata), written in batches, then read back after the store is
  // opened again from its folder: the store gives the session's history whole, not one output
  const items: AgentInputItem[] = []
  for (const m of history) {
    for (const p of m.parts) {
      if (p.type === 'text' && m.role === 'user') items.push({ role: 'user', content: p.text })
      else if (p.type === 'tool_call') items.push({ type: 'function_call', callId: p.id, name: p.name, arguments: p.arguments, status: 'completed' })
      else if (p.type === 'tool_result' && typeof p.content === 'string') {
        items.push({
          type: 'function_call_result',
          callId: p.toolCallId,
          name: p.name ?? 'tool',
          status: 'completed',
          output: { type: 'text', text: p.content },
        })
      }
    }
  }
  const storeDir = join(dir, 'store')
  const writer = await openDurableStore(fileStorage(storeDir))({ maxHistorySize: Infinity })
  const agents = chatStoreSession({ log: storeChatLog(writer), sessionId: 'bench' })
  for (let i = 0; i < items.length; i += 500) await agents.addItems(items.slice(i, i + 500))
  await writer.close()
  let stored: Messages = []
  const fromStore = await timedAsync(1, async () => {
    const reader = await openDurableStore(fileStorage(storeDir))({ maxHistorySize: Infinity })
    stored = await chatStoreSession({ log: storeChatLog(reader), sessionId: 'bench' }).history()
    await reader.close()
  })
  const storedRefs = pruneToolResults({ protectTokens: 40_000 })(stored).flatMap(pointersOf).map(toPointerRef)
  const storedIndex = indexHistory(stored)
  // every output pruned from the stored session reads back from it as the history before the store held it, byte for byte
  for (const ref of storedRefs) {
    const a = check(readBack(ref)(storedIndex))
    if (a.part === 'arguments') continue
    const b = check(readBack(ref)(index))
    if (a.text !== b.text) throw new Error(`read-back from the store differs for ${ref}`)
  }
  const fromStoredIndex = timed(RUNS, (i) => check(readBack(storedRefs[Math.floor((i * (storedRefs.length - 1)) / (RUNS - 1))] as string)(storedIndex)))
  rmSync(dir, { recursive: true, force: true })

  const queries = ['ENOENT', 'cart total', 'checkout', 'rounding error', 'TypeError', 'price']
  const search = timed(queries.length * 3, (i) => searchHistory({ query: queries[i % queries.length] as string })(history))
  const regex = timed(queries.length, () => searchHistory({ query: 'fail(ed|ure)?:? \\w+', match: 'regex' })(history))
  // the first plain search of an index makes its block filters (once per index)
  const fresh = indexHistory(history)
  const t0 = performance.now()
  searchHistory({ query: queries[0] as string })(fresh)
  const firstSearch = performance.now() - t0
  for (const query of queries) {
    if (JSON.stringify(searchHistory({ query })(index)) !== JSON.stringify(searchHistory({ query })(history)))
      throw new Error(`the index finds other hits for ${query}`)
  }
  const searchIndex = timed(queries.length * 3, (i) => searchHistory({ query: queries[i % queries.length] as string })(index))
  const regexIndex = timed(queries.length, () => searchHistory({ query: 'fail(ed|ure)?:? \\w+', match: 'regex' })(index))

  table(
    `read-back (${history.length} messages; ${refs.length} pruned outputs with pointers; session file ${(size / 1e6).toFixed(1)} MB)`,
    ['operation', 'median ms', 'p95 ms', 'target ms', 'vs'],
    [
      ['readBack, from the history in memory (one output, ≤ 16 KB page)', ms(memory.median), ms(memory.p95), '2', ''],
      ['indexHistory, the history prepared once (outputs by call id, texts lower-cased)', ms(build.median), ms(build.p95), '—', ''],
      ['readBack, from the prepared index', ms(fromIndex.median), ms(fromIndex.p95), '2', `${ratio(memory.median, fromIndex.median)} the history`],
      ['readBackFromJSONL, from the session file (read from disk, then the lines naming the call)', ms(fromFile.median), ms(fromFile.p95), '20', ''],
      ['  of which the file read alone (readFileSync, utf8)', ms(readOnly.median), ms(readOnly.p95), '—', ''],
      ['readBackFromJSONL, from the file text already in memory', ms(fromText.median), ms(fromText.p95), '—', ''],
      ["indexHistoryFile, the session file indexed once (byte ranges of each output's lines)", ms(indexFile.median), ms(indexFile.p95), '—', ''],
      [
        'readBackFromFile, from the session file through its index (positioned reads)',
        ms(fromFileIndex.median),
        ms(fromFileIndex.p95),
        '20',
        `${ratio(fromFile.median, fromFileIndex.median)} readBackFromJSONL`,
      ],
      [
        `chat store on its file backend: reopen it, read the Agents SDK session's history (${stored.length} messages)`,
        ms(fromStore.median),
        '—',
        '20',
        '',
      ],
      ['  then readBack from that history, prepared by indexHistory', ms(fromStoredIndex.median), ms(fromStoredIndex.p95), '—', ''],
      ['searchHistory, text (any case), 20 hits ≤ 8 KB', ms(search.median), ms(search.p95), '20', ''],
      ['searchHistory, regular expression', ms(regex.median), ms(regex.p95), '—', ''],
      ['  the first text search of a new index (makes its block filters)', ms(firstSearch), '—', '—', ''],
      [
        'searchHistory over the prepared index, text (any case), 20 hits ≤ 8 KB',
        ms(searchIndex.median),
        ms(searchIndex.p95),
        '20',
        `${ratio(search.median, searchIndex.median)} the history`,
      ],
      [
        'searchHistory over the prepared index, regular expression',
        ms(regexIndex.median),
        ms(regexIndex.p95),
        '—',
        `${ratio(regex.median, regexIndex.median)} the history`,
      ],
    ],
  )
}
