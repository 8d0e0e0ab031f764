import { describe, expect, it } from 'vitest'
import { fromGeminiRequest, toGeminiRequest } from '../../../src/adapters/gemini/request.ts'
import { right } from '../support.ts'

/** A REST body as the function-calling guide writes it: `parameters` typed in lower case. */
const lowerBody = {
  contents: [{ role: 'user', parts: [{ text: 'Turn the lights down to a romantic level' }] }],
  tools: [{
    functionDeclarations: [{
      name: 'set_light_values',
      description: 'Sets the brightness and color temperature of a light.',
      parameters: {
        type: 'object',
        properties: {
          brightness: { type: 'integer', description: 'Light level from 0 to 100.' },
          color_temp: { type: 'string', enum: ['daylight', 'cool', 'warm'] },
          rooms: { type: 'array', items: { type: 'string' } },
        },
        required: ['brightness', 'color_temp'],
      },
    }],
  }],
}

const upperBody = {
  ...lowerBody,
  tools: [{
    functionDeclarations: [{
      name: 'get_weather',
      parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] },
    }],
  }],
}

describe('Gemini function declarations keep the case of their schema types', () => {
  it.each([['lower', lowerBody], ['upper', upperBody]])('a body typed in %s case comes back as it was', (_, body) => {
    expect(right(toGeminiRequest()(right(fromGeminiRequest(body)))).request).toEqual(body)
  })

  it('reads either case as JSON Schema (lower-case types)', () => {
    const [lower] = right(fromGeminiRequest(lowerBody)).tools ?? []
    const [upper] = right(fromGeminiRequest(upperBody)).tools ?? []
    expect(lower?.type === 'function' ? lower.inputSchema['type'] : undefined).toBe('object')
    expect(upper?.type === 'function' ? upper.inputSchema : undefined).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] })
  })
})
