/**
 * Reading a Chromium trace (Playwright's `browser.startTracing`, category `toplevel` and user
 * timing) for the browser bench: the page's main-thread tasks between two `performance.mark`s,
 * with their wall time and their thread (CPU) time. Thread time does not grow when the operating
 * system runs other threads instead, so on a busy machine it tells what a task itself costs.
 */

export const TRACE_CATEGORIES = ['toplevel', 'blink.user_timing', 'devtools.timeline', '__metadata']

type TraceEvent = {
  readonly name: string
  readonly ph: string
  readonly pid: number
  readonly tid: number
  readonly ts: number
  readonly dur?: number
  readonly tdur?: number
}

/** The longest task (wall and thread time) and the longest garbage collection pause inside the window, in ms. */
export type TaskFigures = { readonly wall: number; readonly cpu: number; readonly tasks: number; readonly gc: number }

const TASKS = new Set(['RunTask', 'ThreadControllerImpl::RunTask'])
const GC = new Set(['MajorGC', 'MinorGC'])

/**
 * The longest main-thread task (wall and thread time, ms) of each marked window `label`
 * (`label:start` … `label:end`), on the thread that made the marks.
 */
export const tasksByWindow = (trace: Buffer | string): ReadonlyMap<string, TaskFigures> => {
  const events = (JSON.parse(trace.toString()) as { traceEvents: TraceEvent[] }).traceEvents
  const marks = new Map<string, TraceEvent>()
  for (const e of events) if (e.name.endsWith(':start') || e.name.endsWith(':end')) marks.set(e.name, e)
  const tasks = events.filter((e) => e.ph === 'X' && TASKS.has(e.name) && e.dur !== undefined)
  const gcs = events.filter((e) => e.ph === 'X' && GC.has(e.name) && e.dur !== undefined)
  const out = new Map<string, TaskFigures>()
  for (const [name, start] of marks) {
    if (!name.endsWith(':start')) continue
    const label = name.slice(0, -':start'.length)
    const end = marks.get(`${label}:end`)
    if (end === undefined) continue
    let wall = 0
    let cpu = 0
    let n = 0
    for (const t of tasks) {
      if (t.pid !== start.pid || t.tid !== start.tid) continue
      if (t.ts + (t.dur ?? 0) < start.ts || t.ts > end.ts) continue
      n++
      wall = Math.max(wall, (t.dur ?? 0) / 1000)
      cpu = Math.max(cpu, (t.tdur ?? Number.NaN) / 1000)
    }
    let gc = 0
    for (const g of gcs) {
      if (g.pid !== start.pid || g.tid !== start.tid || g.ts < start.ts || g.ts > end.ts) continue
      gc = Math.max(gc, (g.dur ?? 0) / 1000)
    }
    out.set(label, { wall, cpu, tasks: n, gc })
  }
  return out
}
