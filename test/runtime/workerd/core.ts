/**
 * workerd smoke test of the core: a module worker whose `test()` builds, encodes and decodes a
 * history with image bytes (Web-standard base64, no Buffer) on the Cloudflare Workers runtime.
 */
import { fromJSONL, toJSONL } from '../../../src/history/codec.ts'
import { textContent } from '../../../src/message/accessors.ts'
import { makeMessage, textMessage } from '../../../src/message/message.ts'
import { image, text, toolCall } from '../../../src/message/part-make.ts'
import { deepEqual, equal, ok } from './support/assert.ts'

export default {
  async test(): Promise<void> {
    ok(typeof (globalThis as { Worker?: unknown }).Worker === 'undefined', 'workerd has no Worker global')
    const history = [
      textMessage('user', 'Read the parser'),
      makeMessage({ role: 'assistant', parts: [text('Reading.'), toolCall({ id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' })] }),
      makeMessage({ role: 'user', parts: [image({ data: new Uint8Array([1, 2, 3, 255]), mediaType: 'image/png' })] }),
    ]
    const back = fromJSONL(toJSONL(history))
    equal(back._tag, 'Right', 'JSONL round trip decodes')
    if (back._tag !== 'Right') return
    deepEqual(back.right, history, 'JSONL round trip is lossless')
    equal(textContent(back.right[0]!), 'Read the parser', 'text content')
  },
}
