import { describe, expect, it } from 'vitest'
import { fromGeminiResponse } from '../../../src/adapters/gemini/contents-from.ts'
import { geminiStream } from '../../../src/adapters/gemini/stream.ts'
import { makeBuilderState } from '../../../src/builder/state.ts'
import { replayBuilderInputs } from '../../../src/builder/step.ts'
import { type LifecycleInput } from '../../../src/builder/types.ts'
import { right } from '../support.ts'

/**
 * A streamed Gemini reply with code execution (the code, then its result, in their documented part
 * shapes) and an inline image between texts, and the same reply as one response.
 */
const code = { executableCode: { language: 'PYTHON', code: 'print(sum(range(10)))' } }
const result = { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '45\n' } }
const image = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }
const chunks = [
  { responseId: 'r1', modelVersion: 'gemini-2.5-pro', candidates: [{ content: { role: 'model', parts: [{ text: 'Let me compute it.' }] } }] },
  { responseId: 'r1', modelVersion: 'gemini-2.5-pro', candidates: [{ content: { role: 'model', parts: [code] } }] },
  { responseId: 'r1', modelVersion: 'gemini-2.5-pro', candidates: [{ content: { role: 'model', parts: [result] } }] },
  {
    responseId: 'r1',
    modelVersion: 'gemini-2.5-pro',
    candidates: [{ content: { role: 'model', parts: [image, { text: 'The sum is 45.' }] }, finishReason: 'STOP' }],
  },
]
const whole = {
  responseId: 'r1',
  modelVersion: 'gemini-2.5-pro',
  candidates: [{ content: { role: 'model', parts: [{ text: 'Let me compute it.' }, code, result, image, { text: 'The sum is 45.' }] }, finishReason: 'STOP' }],
}

const streamed = () => {
  const assembler = geminiStream()
  const inputs: LifecycleInput[] = [...chunks.flatMap((c) => assembler.push(c)), ...assembler.end()]
  return { inputs, history: replayBuilderInputs(inputs)(makeBuilderState()).state.history }
}

describe('geminiStream keeps every part', () => {
  it('adds code execution, its result and an inline image whole, in their places, as the whole response reads them', () => {
    const { inputs, history } = streamed()
    expect(inputs.filter((i) => i.type === 'addPart')).toHaveLength(3)
    const message = history.at(-1)
    const expected = right(fromGeminiResponse(whole))
    const kinds = (ps: ReadonlyArray<{ readonly type: string; readonly kind?: string }>) =>
      ps.filter((p) => p.type !== 'finish').map((p) => (p.type === 'provider' ? `provider:${p.kind}` : p.type))
    expect(kinds(message?.parts ?? [])).toEqual(kinds(expected.parts))
    expect(message?.parts.filter((p) => p.type === 'provider')).toEqual(expected.parts.filter((p) => p.type === 'provider'))
  })
})
