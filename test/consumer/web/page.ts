// The browser guide's start, bundled by esbuild: the page passes the worker it built beside it.
import { createEngine, webWorkerHost } from 'chatfold/engine'
import { textMessage } from 'chatfold/message'

const start = async (): Promise<number> => {
  const engine = createEngine({ mode: 'worker', encoding: 'o200k_base', host: () => webWorkerHost(new URL('./engine.worker.js', import.meta.url)) })
  const session = await engine.open('chat', [textMessage('user', 'Hello there'), textMessage('assistant', 'Hi.')])
  const { tokens } = await session.tokens()
  engine.dispose()
  return tokens
}
start().then(
  (tokens) => (document.title = `tokens ${tokens}`),
  (e: unknown) => (document.title = `failed: ${e instanceof Error ? e.message : String(e)}`),
)
