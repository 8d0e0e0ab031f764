// The README's module-scope pattern, as users write it: the store and its handler made at module scope.
import { createChatHandler, createChatStore } from '../../../src/mod.ts'

const store = createChatStore()
export default { fetch: createChatHandler(store) }
