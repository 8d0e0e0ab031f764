// The README's module-scope pattern, as users write it: the store and its handler made at module scope.
import { createChatHandler } from '../../../src/store/http.ts'
import { createChatStore } from '../../../src/store/store.ts'

const store = createChatStore()
export default { fetch: createChatHandler(store) }
