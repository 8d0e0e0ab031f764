import { describe, expect, it } from 'vitest'
import { checkRequest } from '../../src/adapters/rules.ts'
import { vendorOf, wireApis } from '../../src/adapters/vocabulary.ts'
import { WIRE_API_TABLE, wireApiRows } from '../../src/adapters/wire-apis.ts'
import { INPUT_FORMATS } from '../../src/sessions/input-formats.ts'
import { OUTPUT_FORMATS } from '../../src/cli/formats.ts'
import { SIGNATURES } from '../../src/sessions/detect.ts'

describe('the wire API table is the one list of providers', () => {
  it('has one row per wire API, each with its vendor', () => {
    expect(Object.keys(WIRE_API_TABLE)).toEqual([...wireApis])
    expect(wireApiRows.map((r) => [r.api, r.vendor])).toEqual(wireApis.map((a) => [a, vendorOf(a)]))
  })

  it('gives the CLI its input and output formats and their detection', () => {
    const inputs = INPUT_FORMATS.map((f) => f.name)
    const outputs = OUTPUT_FORMATS.map((f) => f.name)
    for (const row of wireApiRows) {
      expect(inputs).toContain(row.api)
      expect(outputs).toContain(row.api)
      expect(SIGNATURES[row.api]).toBeDefined()
      expect(OUTPUT_FORMATS.find((f) => f.name === row.api)?.writeRequest === undefined).toBe(row.request === undefined)
    }
  })

  it('gives checkRequest the field each request holds its history in', () => {
    for (const row of wireApiRows)
      expect(checkRequest(row.api)({})).toEqual([{ path: row.field, rule: `${row.api}/shape`, message: `a ${row.api} request holds an array "${row.field}"` }])
  })
})
