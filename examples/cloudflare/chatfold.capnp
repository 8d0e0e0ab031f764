# The same Worker under workerd itself, Durable Objects kept on disk:
#   npx esbuild examples/cloudflare/worker.ts --bundle --format=esm --platform=neutral \
#     --main-fields=module,main --outfile=examples/cloudflare/worker.js
#   mkdir -p chat-data && CHATFOLD_TOKEN=$(openssl rand -base64 32) \
#     npx workerd serve examples/cloudflare/chatfold.capnp --directory-path storage=chat-data
# Callers send `Authorization: Bearer $CHATFOLD_TOKEN`; with no token set, every request is a 503.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "storage", disk = (path = "chat-data", writable = true)),
  ],
  sockets = [ (name = "http", address = "127.0.0.1:8787", http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2026-01-01",
  durableObjectNamespaces = [
    (className = "ChatStoreObject", uniqueKey = "chatfold-chat-store", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "storage"),
  bindings = [
    (name = "CHAT_STORE", durableObjectNamespace = "ChatStoreObject"),
    (name = "CHATFOLD_TOKEN", fromEnvironment = "CHATFOLD_TOKEN"),
    (name = "CHATFOLD_READ_TOKEN", fromEnvironment = "CHATFOLD_READ_TOKEN"),
  ],
);
