/** A screenshot tool's result (a text block and a PNG) as chatfold blocks and as an Anthropic exchange, for the tests of images in tool results. */
import { fromAnthropic } from '../../src/adapters/anthropic/messages-from.ts'
import type { Messages } from '../../src/message/message.ts'
import type { ToolResultBlock } from '../../src/message/part-model.ts'
import * as E from 'fp-ts/Either'

/** The PNG signature, as base64 and as bytes. */
export const PNG_B64 = 'iVBORw0KGgo='
export const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])

/** The result's content as chatfold blocks. */
export const shot: ReadonlyArray<ToolResultBlock> = [{ type: 'text', text: 'The page' }, { type: 'image', data: PNG, mediaType: 'image/png' }]

/** A `screenshot` call `c1` and its result (the text, then the image) as Anthropic messages. */
export const anthropicShot = (): Array<Record<string, unknown>> => [
  { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'screenshot', input: {} }] },
  {
    role: 'user',
    content: [{
      type: 'tool_result',
      tool_use_id: 'c1',
      content: [{ type: 'text', text: 'The page' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } }],
    }],
  },
]

/** That exchange read into a history. */
export const shotHistory = (): Messages => {
  const r = fromAnthropic({ messages: anthropicShot() })
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}
