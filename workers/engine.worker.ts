/**
 * The engine's Web Worker (browsers, Deno): the very service an inline engine calls, exposed with
 * Comlink. `createEngine({ mode: 'worker' })` starts it.
 *
 * @module
 */
import { expose } from 'comlink'
import { createEngineService } from '../src/engine/service.ts'

expose(createEngineService())
