/**
 * The assembler of Gemini `streamGenerateContent` chunks (see `streams.ts`).
 *
 * @module
 */
import type { LifecycleInput } from '../../builder/types.ts'
import { newId } from '../../internal/id.ts'
import { reader } from '../decode.ts'
import { decodeGeminiResponse } from './contents-from.ts'
import { lifecycle, str, type StreamAssembler } from '../stream-kit.ts'

/**
 * An assembler for Gemini `generateContentStream` chunks (each a `GenerateContentResponse`): the
 * first chunk opens the reply (`responseId`, `modelVersion`); thought parts append reasoning and
 * their `thoughtSignature` signs it; a signature on another part becomes a redacted reasoning part
 * before it (as `fromGeminiResponse` reads it); text parts append text; each `functionCall` is a
 * complete tool call (with a made-up id when it has none); `finishReason` sets the finish part;
 * `usageMetadata` records the output tokens; an error body or a blocked prompt sets the error. Every
 * other part (code execution and its result, server tool parts, inline images and files, grounding)
 * is added whole, as `fromGeminiResponse` reads it, and fields only Gemini knows stay on the part
 * they came with. `end` finalizes.
 *
 * @example
 * import { geminiStream } from 'chatfold/adapters'
 * const assembler = geminiStream()
 * assembler.push({ responseId: 'r1', modelVersion: 'gemini-2.5-pro', candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] } }] })
 * assembler.end() // [{ type: 'finalizeAssistant' }]
 *
 * @since 0.1.0
 * @category adapters
 */
export const geminiStream = (): StreamAssembler => {
  const life = lifecycle('google')
  const calls = { prefix: '', count: 0 }
  return {
    push: (chunk) => {
      if (calls.prefix === '') calls.prefix = `${str(chunk, 'responseId') ?? newId()}-`
      const x = decodeGeminiResponse(reader(), chunk, calls)
      const out: LifecycleInput[] = x.error === undefined ? life.start(x.id, x.model) : [...life.ensure(), { type: 'setError', error: x.error }]
      life.tokens(x.output, x.thinking)
      for (const p of x.parts) {
        if (p.type === 'reasoning' && p.redacted === true) out.push({ type: 'addRedactedThinking', data: p.text })
        else if (p.type === 'reasoning') {
          if (p.text !== '') out.push({ type: 'appendThinking', text: p.text })
          if (p.signature !== undefined) out.push({ type: 'setThinkingSignature', signature: p.signature })
        } else if (p.type === 'text') {
          if (p.text !== '') out.push({ type: 'appendContent', text: p.text })
          const fields = p.providerFields?.['google']
          if (fields !== undefined && p.text !== '') out.push({ type: 'setPartFields', provider: 'google', fields })
        } else if (p.type === 'tool_call') {
          out.push({ type: 'addToolCall', id: p.id, name: p.name, arguments: p.arguments })
          const fields = p.providerFields?.['google']
          if (fields !== undefined) out.push({ type: 'setPartFields', provider: 'google', fields })
        } // what no streamed input builds (code execution, server tool parts, inline images and
        // files, grounding kept as provider parts) goes in whole, as the whole response reads it
        else if (p.type !== 'finish') out.push({ type: 'addPart', part: p })
      }
      if (x.finish !== undefined) out.push({ type: 'finish', reason: x.finish })
      return out
    },
    end: () => life.finalize(),
  }
}
