// A chat store per id on Cloudflare: each store is a Durable Object holding its log in SQLite.
// POST /stores/<store id>/modalities/chat/submit, GET /stores/<store id>/environment/modalities/chat, …
import { ChatStoreObject, chatStoreWorker } from 'chatfold/cloudflare'

export { ChatStoreObject }
export default chatStoreWorker({ binding: 'CHAT_STORE' })
