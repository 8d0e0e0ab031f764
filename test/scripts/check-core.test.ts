import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, violations } from '../support/layers.ts'

/** A small source tree in a temporary folder: history's file imports a private file of message. */
const tree = mkdtempSync(join(tmpdir(), 'chatfold-check-core-'))
const write = (file: string, text: string): void => {
  mkdirSync(dirname(join(tree, file)), { recursive: true })
  writeFileSync(join(tree, file), text)
}
write('src/message/_walk.ts', '/** A private helper. */\nexport const walk = 1\n')
write('src/message/message.ts', "/** Its own folder may import it. */\nimport { walk } from './_walk.ts'\nexport const message = walk\n")
write(
  'src/history/views.ts',
  "/** Another folder may not. */\nimport { message } from '../message/message.ts'\nimport { walk } from '../message/_walk.ts'\nexport const views = message + walk\n",
)

afterAll(() => rmSync(tree, { recursive: true, force: true }))

describe("check:core on an import of another folder's private file", () => {
  it('violations() names the import, and only that one of the private rule', () => {
    const found = violations(tree).filter((v) => v.message.includes('private'))
    expect(found).toEqual([{ file: 'src/history/views.ts', line: 3, message: expect.stringContaining('src/message/_walk.ts') }])
  })

  it('scripts/check-core.ts exits 1 and prints it', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'check-core.ts'), tree], { cwd: ROOT, encoding: 'utf8' })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('src/history/views.ts:3: imports src/message/_walk.ts, a private file of another folder')
  })
})
