/**
 * Content parts: the typed blocks a message is made of (text, reasoning, image, file, tool call,
 * tool result, finish), their codecs, and an open registry for custom part types.
 *
 * In memory an image or file holds its bytes as a `Uint8Array`; on the wire (JSON) the bytes are
 * base64. A part's wire form is type-tagged: `{"type":"tool_call","data":{…}}`.
 *
 * This module gathers three: the model (`part-model.ts`: the built-in codecs and types), the
 * registry with the codec of any part (`part-registry.ts`), and the constructors and refinements
 * (`part-make.ts`).
 *
 * @module
 */
export * from './part-model.ts'
export * from './part-registry.ts'
export * from './part-make.ts'
