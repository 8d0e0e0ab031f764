/**
 * `chatfold render`: a history as Markdown, plain text, a compaction transcript, or one HTML page;
 * `--last N` keeps the last N turns.
 *
 * @module
 */
import { basename } from 'node:path'
import type { Messages } from '../message/message.ts'
import { render, renderMarkdownWith } from '../history/render.ts'
import { renderHtmlWith } from '../history/render-html.ts'
import { lastTurns } from '../history/views.ts'
import { renderTranscript } from '../compaction/transcript.ts'
import { loadHistory, loadOptions, notes, readReport, writeText } from './_load.ts'
import type { CliIO } from './_progress.ts'
import type { Common } from './_common.ts'

/** The options of `render`. */
export type RenderFlags = Common & {
  readonly format: RenderFormat
  readonly reasoning: 'omit' | 'include'
  readonly maxResultLen: number
  readonly last?: number
  readonly title?: string
}

/** The formats of `render --format`. */
export const RENDER_FORMATS = ['markdown', 'text', 'transcript', 'html'] as const

/** A format of `render --format`. */
export type RenderFormat = (typeof RENDER_FORMATS)[number]

const RENDERERS: Readonly<Record<RenderFormat, (o: RenderFlags, file: string, archive: Messages) => (ms: Messages) => string>> = {
  markdown: (o) => renderMarkdownWith({ reasoning: o.reasoning }),
  text: () => render,
  transcript: (o) => (ms) => `${renderTranscript({ maxResultLen: o.maxResultLen })(ms)}\n`,
  html: (o, file, archive) => renderHtmlWith({ title: o.title ?? basename(file), archive }),
}

/** `chatfold render FILE`. */
export const renderCommand = async (io: CliIO, file: string, o: RenderFlags): Promise<void> => {
  const h = loadHistory(file, loadOptions(o))
  notes(io, file, o, h)
  const ms = o.last === undefined ? h.messages : lastTurns(o.last)(h.messages)
  const text = RENDERERS[o.format](o, file, h.archive)(ms)
  await writeText(o.output, o.json === true ? `${JSON.stringify({ format: o.format, text, ...readReport(h) })}\n` : text, io.out)
}
