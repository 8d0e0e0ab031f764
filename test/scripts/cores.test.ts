import { describe, expect, it } from 'vitest'
import { between, type Snapshot, snapshot, type ThreadGroup } from '../../scripts/bench/cores.ts'

const snap = (at: number, busy: number, threads: Record<string, [ThreadGroup, number, number]>): Snapshot => ({
  at,
  busy,
  cores: 2,
  threads: new Map(Object.entries(threads).map(([k, [group, ran, waited]]) => [k, { group, ran, waited }])),
})

describe('the browser bench: where the cores went (scripts/bench/cores.ts)', () => {
  it('takes the busiest renderer main thread for the page, counts other main threads with the rest of Chromium, and leaves the machine the remainder', () => {
    const a = snap(1000, 50_000, {
      '10/10': ['browser', 500, 10],
      '20/20': ['main', 100, 5], // a spare renderer
      '30/30': ['main', 200, 20], // the page's renderer
      '30/31': ['workers', 300, 1],
      '30/32': ['pool', 40, 4],
    })
    const b = snap(4000, 57_000, {
      '10/10': ['browser', 600, 15],
      '20/20': ['main', 150, 6],
      '30/30': ['main', 900, 320],
      '30/31': ['workers', 3200, 201],
      '30/32': ['pool', 540, 504],
      '30/33': ['workers', 100, 50], // a worker started in between: all its time is the window's
    })
    const w = between(a, b)
    expect(w.elapsed).toBe(3000)
    expect(w.groups.page).toEqual({ ran: 700, waited: 300 })
    expect(w.groups.workers).toEqual({ ran: 3000, waited: 250 })
    expect(w.groups.pool).toEqual({ ran: 500, waited: 500 })
    // the browser process (100; 5) and the spare renderer's main thread (50; 1)
    expect(w.groups.browser).toEqual({ ran: 150, waited: 6 })
    // 7,000 ms busy in all, 4,350 of it Chromium's
    expect(w.rest).toBe(7000 - 4350)
  })

  it.runIf(process.platform === 'linux')('reads the machine on Linux: its cores, and a busy time that only grows', () => {
    const a = snapshot()
    const b = snapshot()
    expect(a).toBeDefined()
    expect(a?.cores).toBeGreaterThan(0)
    expect((b?.busy ?? 0) - (a?.busy ?? 0)).toBeGreaterThanOrEqual(0)
  })
})
