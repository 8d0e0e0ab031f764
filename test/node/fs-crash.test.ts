import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/Either'
import { loadHistory } from '../../src/node/session-file.ts'
import { toJSONL } from '../../src/history/codec.ts'
import { forSave } from '../../src/history/views.ts'
import { sampleSession } from '../../sample/session.ts'

const loop = join(dirname(fileURLToPath(import.meta.url)), 'support', 'save-loop.ts')
let dir: string
// two sessions of about 7 MB each: the same shape, different content
const a = toJSONL(forSave(sampleSession({ messages: 2_000, seed: 11 })))
const b = toJSONL(forSave(sampleSession({ messages: 2_000, seed: 12 })))

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-crash-'))
  await writeFile(join(dir, 'A'), a)
  await writeFile(join(dir, 'B'), b)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Starts a child that saves A and B in turn; once it has saved both, kills it with SIGKILL after `delay` ms. */
const crash = (file: string, mode: 'atomic' | 'naive', delay: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', loop, file, mode, join(dir, 'A'), join(dir, 'B')], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let killed = false
    const guard = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the child never saved twice: ${err}`))
    }, 60_000)
    child.stderr.on('data', (d: Buffer) => void (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (!killed && out.includes('saved 1\n')) {
        killed = true
        setTimeout(() => child.kill('SIGKILL'), delay)
      }
    })
    child.on('exit', (code, signal) => {
      clearTimeout(guard)
      if (signal === 'SIGKILL') resolve()
      else reject(new Error(`the child exited with ${code}: ${err}`))
    })
  })

const delays = [2, 9, 17, 26, 38, 51]

describe('crash while saving a large session', () => {
  it(
    'a child killed mid-save leaves the old file or the new one, never a mix',
    async () => {
      const files = delays.map((_, i) => join(dir, `atomic-${i}.jsonl`))
      await Promise.all(delays.map((d, i) => crash(files[i]!, 'atomic', d)))
      // the kills did land inside saves: interrupted saves leave their temporary file behind (until the next load)
      const temporary = (await readdir(dir)).filter((n) => n.startsWith('.atomic-') && n.endsWith('.tmp'))
      expect(temporary.length).toBeGreaterThan(0)
      for (const [i, file] of files.entries()) {
        const text = await readFile(file, 'utf8')
        expect(text === a || text === b, `trial ${i}: the file is A or B`).toBe(true)
        expect(E.isRight(await loadHistory(file, { tornTail: 'fail' }))).toBe(true)
      }
      // and the next load removed them
      expect((await readdir(dir)).filter((n) => n.startsWith('.atomic-') && n.endsWith('.tmp'))).toEqual([])
    },
    120_000,
  )

  it(
    'control: the same kill tears a file rewritten in place, so the check above can fail',
    async () => {
      const files = delays.slice(0, 3).map((_, i) => join(dir, `naive-${i}.jsonl`))
      await Promise.all(files.map((f, i) => crash(f, 'naive', delays[i * 2]!)))
      const torn = await Promise.all(files.map(async (f) => ((t) => t !== a && t !== b)(await readFile(f, 'utf8'))))
      expect(torn.filter((t) => t).length).toBeGreaterThan(0)
    },
    120_000,
  )
})
