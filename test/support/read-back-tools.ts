/** A small pruned history, the pointer of one of its pruned results and that result's text, for the read-back tools' tests. */
import { pointersOf } from '../../src/history/pointer.ts'
import { pruneToolResults } from '../../src/history/prune.ts'
import { toPointerRef } from '../../src/readback/pointer-ref.ts'
import type { ToolResultPart } from '../../src/message/part-model.ts'
import { readBackHistory } from './read-back-history.ts'

export const toolFixture = () => {
  const history = readBackHistory(300)
  const pruned = pruneToolResults({ protectTokens: 2_000, minimumSavings: 0 })(history)
  const pointer = pruned.flatMap(pointersOf).find((p) => p.part === 'result')!
  const original = (history.find((m) => m.id === pointer.messageId)!.parts[0] as ToolResultPart).content as string
  return { history, pruned, pointer, ref: toPointerRef(pointer), original }
}
