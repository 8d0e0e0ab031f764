/**
 * A Gemini `generateContent` body told by its shape: a `contents` array.
 *
 * @module
 */
import { isObject } from '../../internal/object.ts'
import type { ShapeFit } from '../shape.ts'

/** The fit of a body to Gemini `generateContent`, or `undefined`. */
export const geminiShape = (
  u: unknown,
): ShapeFit | undefined => (isObject(u) && Array.isArray(u['contents']) ? { why: 'contents (Gemini request)' } : undefined)
