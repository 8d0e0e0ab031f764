/**
 * What the AI SDK's own parts and fields become on providers' wire formats (see `foreign.ts`):
 *
 * - tool approval requests and responses → left out: they are the AI SDK's own exchange with the
 *   app, not model content;
 * - a call the provider ran itself (`providerExecuted`) and its result, kept as they came → left
 *   out: only that provider, through the AI SDK, can take them back;
 * - any other part the AI SDK gave → left out with its type;
 * - fields on built-in parts: the markers chatfold adds so that a part goes back as it came
 *   (`outputType`, `inputText`, `state`, `alone`, `dataUrl`, `base64`, `file`, `noInput`,
 *   `dynamic`, and `providerExecuted: false`, which every provider assumes) carry nothing a
 *   provider takes and cross silently; `providerOptions`, a tool result's kept `output` and a UI
 *   tool part's other fields (`ui`) are left out and named.
 *
 * @module
 */
import type { Part, ProviderPart } from '../../message/part-model.ts'
import type { Portable, PortableFields, PortableRules } from '../foreign-kit.ts'

const REASONS: Readonly<Record<string, string>> = {
  'tool-approval-request': 'is the AI SDK asking the app to approve a call, not model content',
  'tool-approval-response': "is the app's answer to an approval request, not model content",
  'tool-call': 'is a call the provider ran itself; only that provider can take it back',
  'tool-result': 'is the result of a call the provider ran itself; only that provider can take it back',
}

const part = (p: ProviderPart): Portable => ({ kind: 'drop', reason: `the AI SDK's "${p.kind}" ${REASONS[p.kind] ?? 'has no equivalent on providers'}` })

/** Markers chatfold adds to `providerFields['ai-sdk']`: how a part came, nothing a provider takes. */
const MARKERS: ReadonlySet<string> = new Set([
  'outputType',
  'inputText',
  'state',
  'alone',
  'dataUrl',
  'base64',
  'file',
  'noInput',
  'dynamic',
  'providerExecuted',
])

const fields = (p: Part, f: Readonly<Record<string, unknown>>): PortableFields => ({ part: p, dropped: Object.keys(f).filter((k) => !MARKERS.has(k)) })

/** The AI SDK's rules for its parts and fields on providers. */
export const aiSdkPortable: PortableRules = { part, fields }
