/**
 * The explorer's drawings on canvas: the live graph of main-thread frame times, and the bar chart
 * of tokens per message (or per group of messages).
 */

const FRAME_MS = 1000 / 60

/**
 * Watches the main thread with `requestAnimationFrame`: every frame's time since the last one,
 * drawn as bars (green within a 60 Hz frame, amber to 50 ms, red beyond), with the longest frame of
 * the last few seconds and the Long Tasks the browser reported.
 */
export const frameGraph = (canvas: HTMLCanvasElement, label: HTMLElement) => {
  const ctx = canvas.getContext('2d')
  const frames: Array<{ at: number; ms: number }> = []
  let longTasks = 0
  let longestTask = 0
  if (typeof PerformanceObserver === 'function' && PerformanceObserver.supportedEntryTypes?.includes('longtask')) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        longTasks++
        longestTask = Math.max(longestTask, e.duration)
      }
    }).observe({ type: 'longtask' })
  }
  let last = performance.now()
  const draw = (now: number): void => {
    frames.push({ at: now, ms: now - last })
    last = now
    while (frames.length > canvas.width / 3) frames.shift()
    const recent = frames.filter((f) => now - f.at < 5000)
    const longest = Math.max(0, ...recent.map((f) => f.ms))
    label.textContent = `longest frame in the last 5 s: ${longest.toFixed(0)} ms · long tasks (≥ 50 ms) so far: ${longTasks}${longTasks > 0 ? `, longest ${longestTask.toFixed(0)} ms` : ''}`
    label.dataset['longest'] = longest.toFixed(1)
    if (ctx !== null) {
      const { width, height } = canvas
      const scale = height / 100
      ctx.clearRect(0, 0, width, height)
      ctx.strokeStyle = '#c5ccd6'
      ctx.fillStyle = '#5a6473'
      ctx.font = '10px system-ui'
      for (const ms of [FRAME_MS, 50]) {
        const y = height - ms * scale
        ctx.beginPath()
        ctx.moveTo(0, y)
        ctx.lineTo(width, y)
        ctx.stroke()
        ctx.fillText(`${ms.toFixed(0)} ms`, 4, y - 2)
      }
      frames.forEach((f, i) => {
        ctx.fillStyle = f.ms <= FRAME_MS * 1.25 ? '#3f9b5a' : f.ms <= 50 ? '#d99a1e' : '#c9372c'
        const h = Math.min(height, f.ms * scale)
        ctx.fillRect(i * 3, height - h, 2, h)
      })
    }
    requestAnimationFrame(draw)
  }
  requestAnimationFrame(draw)
}

const ROLE_COLOURS: Readonly<Record<string, string>> = { system: '#7a5cc7', user: '#2f7dd3', assistant: '#3f9b5a', tool: '#d99a1e' }

/** Bars of tokens, one per entry, coloured by the role that has the most tokens in it. */
export const drawBars = (canvas: HTMLCanvasElement, bars: ReadonlyArray<{ readonly tokens: number; readonly role: string }>): void => {
  const ctx = canvas.getContext('2d')
  if (ctx === null) return
  const { width, height } = canvas
  ctx.clearRect(0, 0, width, height)
  const max = Math.max(1, ...bars.map((b) => b.tokens))
  const w = width / Math.max(1, bars.length)
  bars.forEach((b, i) => {
    ctx.fillStyle = ROLE_COLOURS[b.role] ?? '#8a94a3'
    const h = Math.max(b.tokens > 0 ? 1 : 0, (b.tokens / max) * (height - 16))
    ctx.fillRect(i * w, height - h, Math.max(1, w - (w > 3 ? 1 : 0)), h)
  })
  ctx.fillStyle = '#5a6473'
  ctx.font = '10px system-ui'
  ctx.fillText(`max ${max.toLocaleString('en')} tokens`, 4, 11)
  let x = width - 4
  for (const [role, colour] of Object.entries(ROLE_COLOURS).reverse()) {
    const w2 = ctx.measureText(role).width
    x -= w2
    ctx.fillStyle = colour
    ctx.fillText(role, x, 11)
    x -= 12
  }
}
