/**
 * workerd smoke test of the engine: no `Worker` global and no `import.meta.url` there, so `auto`
 * runs inline; the o200k ranks load lazily from the bundle; a resident session opens, appends,
 * prunes and gives its history back; a history opens from a Blob of its JSONL; an aborted call
 * rejects; a disposed engine rejects.
 */
import { createEngine } from '../../../src/engine/client.ts'
import { EngineError } from '../../../src/engine/types.ts'
import { textMessage } from '../../../src/message/message.ts'
import { toJSONL } from '../../../src/history/codec.ts'
import { sampleSession } from '../../../sample/session.ts'
import { deepEqual, equal, ok, rejects } from './support/assert.ts'

export default {
  async test(): Promise<void> {
    const engine = createEngine({ encoding: 'o200k_base' })
    equal(engine.mode, 'inline', 'auto mode on workerd')
    await engine.ready()

    const hello = await engine.estimate([textMessage('user', 'Hello, world!')])
    deepEqual(hello, { total: 8, content: 4, thinking: 0, tools: 0, messages: 1 }, 'o200k estimate')

    const history = sampleSession({ messages: 200, seed: 5, maxResult: 3_000 })
    const session = await engine.open('w', history)
    const opened = await session.tokens()
    equal(opened.messages, history.length, 'session size')
    const appended = await session.append([textMessage('user', 'One more turn')])
    equal(appended.messages, history.length + 1, 'append adds one')
    ok(appended.tokens > opened.tokens, 'append adds tokens')

    const pruned = await session.prune({ protectTokens: 2_000, minimumSavings: 500 })
    ok(pruned.report.prunedResults > 0, 'prune pruned results')
    ok(pruned.tokens < appended.tokens, 'prune freed tokens')
    equal((await session.snapshot()).length, history.length + 1, 'snapshot length')

    // a saved history opened from a Blob of its JSONL, as a request body or an R2 object gives one
    const saved = await engine.openFile('saved', new Blob([toJSONL(history)]))
    deepEqual(await saved.tokens(), opened, 'a history opened from a Blob of JSONL')

    const controller = new AbortController()
    controller.abort()
    await rejects(engine.estimate(history, { signal: controller.signal }), /AbortError/, 'aborted call')

    engine.dispose()
    await rejects(session.tokens(), /disposed/, 'disposed engine')
    ok(new EngineError('load', 'x') instanceof Error, 'EngineError is an Error')
  },
}
