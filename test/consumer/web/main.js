// The browser guide's start, under Vite: createEngine() finds its worker by itself.
import { createEngine } from 'chatfold/engine'
import { textMessage } from 'chatfold/message'

const start = async () => {
  const engine = createEngine({ mode: 'worker', encoding: 'o200k_base' })
  const session = await engine.open('chat', [textMessage('user', 'Hello there'), textMessage('assistant', 'Hi.')])
  const { tokens } = await session.tokens()
  engine.dispose()
  return tokens
}
start().then(
  (tokens) => (document.title = `tokens ${tokens}`),
  (e) => (document.title = `failed: ${e instanceof Error ? e.message : String(e)}`),
)
