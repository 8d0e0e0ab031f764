// The chat store on Deno, kept in Deno KV (a local SQLite file here; FoundationDB on Deno Deploy):
//   CHATFOLD_TOKEN=$(openssl rand -base64 32) \
//   deno serve --unstable-kv --allow-read --allow-write --allow-env=CHATFOLD_KV,CHATFOLD_TOKEN,CHATFOLD_READ_TOKEN --port 8787 examples/deno/serve.ts
// Callers send `Authorization: Bearer $CHATFOLD_TOKEN` (CHATFOLD_READ_TOKEN: reads only); with no token set, every request is a 503.
import { kvChatServer } from 'chatfold/deno'

export default kvChatServer({
  path: Deno.env.get('CHATFOLD_KV') ?? './chat-data.sqlite3',
  token: Deno.env.get('CHATFOLD_TOKEN'),
  readToken: Deno.env.get('CHATFOLD_READ_TOKEN'),
})
