// The chat store on Deno, kept in Deno KV (a local SQLite file here; FoundationDB on Deno Deploy):
//   deno serve --unstable-kv --allow-read --allow-write --allow-env=CHATFOLD_KV --port 8787 examples/deno/serve.ts
import { kvChatServer } from 'chatfold/deno'

export default kvChatServer({ path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3' })
