/**
 * `npm start`: decodes the shipped sample session, renders a few messages and exports it as JSONL.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { sampleSession } from './sample.ts'
import { formatDecodeFailure, importJSONL, textContent, toJSONL } from '../src/mod.ts'

const jsonl = toJSONL(sampleSession({ messages: 2_000, seed: 7 }))
const decoded = importJSONL(jsonl)
if (decoded._tag === 'Left') {
  console.error(formatDecodeFailure(decoded.left))
  process.exit(1)
}
const history = decoded.right
console.log(`sample session: ${history.length} messages, ${(jsonl.length / 1e6).toFixed(1)} MB of JSONL`)
for (const m of history.slice(0, 4)) console.log(`  ${m.role.padEnd(9)} ${m.kind.padEnd(9)} ${textContent(m).slice(0, 70)}`)
mkdirSync('out', { recursive: true })
writeFileSync('out/session.jsonl', jsonl)
console.log('wrote out/session.jsonl')
