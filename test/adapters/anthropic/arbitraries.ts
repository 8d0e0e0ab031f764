/**
 * fast-check arbitraries of Anthropic Messages request bodies, of the shapes the corpus documents:
 * alternating user and assistant turns whose blocks are drawn from every kind (text with
 * `cache_control` and citations, images, documents, search results, container uploads, thinking,
 * server tool calls with their results, MCP calls and results, tool use answered by a result in the
 * next user turn). Bodies are in the form `toAnthropic` writes: a content of one plain text block is
 * its string.
 */
import fc from 'fast-check'
import { PDF_BASE64, PNG_BASE64 } from '../fixtures/anthropic-corpus.ts'

type Block = Readonly<Record<string, unknown>> & { readonly type: string }
/** A block, or blocks, made for a tool id. */
type Make = (id: string) => ReadonlyArray<Block>

const words = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ,.']{0,24}[A-Za-z0-9.]$/)
const cache = fc.option(fc.constantFrom({ type: 'ephemeral' }, { type: 'ephemeral', ttl: '1h' }), { nil: undefined })
const withCache = (b: Block, c: unknown): Block => (c === undefined ? b : { ...b, cache_control: c })
const url = fc.webUrl({ withQueryParameters: false, withFragments: false })

const webCitation = fc.record({ url, title: words, cited: words }).map(({ url, title, cited }) => ({
  type: 'web_search_result_location',
  url,
  title,
  encrypted_index: 'Eo8BCioIAhgB',
  cited_text: cited,
}))

const text = fc.tuple(words, cache).map(([t, c]) => withCache({ type: 'text', text: t }, c))
const citedText = fc.tuple(words, fc.array(webCitation, { minLength: 1, maxLength: 2 })).map(([t, citations]): Block => ({ type: 'text', text: t, citations }))

const media: fc.Arbitrary<Block> = fc.oneof(
  fc.tuple(cache).map(([c]) => withCache({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }, c)),
  url.map((u): Block => ({ type: 'image', source: { type: 'url', url: u } })),
  fc.tuple(fc.option(words, { nil: undefined })).map(([title]): Block => ({
    type: 'document',
    source: { type: 'base64', media_type: 'application/pdf', data: PDF_BASE64 },
    ...(title === undefined ? {} : { title }),
  })),
  fc.tuple(words, fc.boolean()).map(([d, cited]): Block => ({
    type: 'document',
    source: { type: 'text', media_type: 'text/plain', data: d },
    ...(cited ? { citations: { enabled: true } } : {}),
  })),
)

const searchResult = fc.tuple(words, url, words).map(([title, source, body]): Block => ({
  type: 'search_result',
  source,
  title,
  content: [{ type: 'text', text: body }],
}))

const userBlock: fc.Arbitrary<Block> = fc.oneof(
  { weight: 3, arbitrary: text },
  { weight: 2, arbitrary: media },
  { weight: 1, arbitrary: searchResult },
  { weight: 1, arbitrary: fc.constant({ type: 'container_upload', file_id: 'file_011CNha8' }) },
)

const thinking: fc.Arbitrary<Block> = fc.oneof(
  words.map((t): Block => ({ type: 'thinking', thinking: t, signature: 'EqQBCgIYAhIM' })),
  fc.constant({ type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3p' }),
)

const webSearch = fc.tuple(words, fc.array(fc.record({ url, title: words }), { maxLength: 2 })).map(
  ([query, results]): Make => (id) => [
    { type: 'server_tool_use', id, name: 'web_search', input: { query } },
    {
      type: 'web_search_tool_result',
      tool_use_id: id,
      content: results.map((r) => ({ type: 'web_search_result', url: r.url, title: r.title, encrypted_content: 'EqgfCioI' })),
    },
  ],
)

const codeExecution = fc.tuple(words, words, fc.nat({ max: 2 })).map(
  ([code, out, rc]): Make => (id) => [
    { type: 'server_tool_use', id, name: 'code_execution', input: { code } },
    { type: 'code_execution_tool_result', tool_use_id: id, content: { type: 'code_execution_result', stdout: out, stderr: '', return_code: rc, content: [] } },
  ],
)

const mcp = fc.tuple(words, words, fc.boolean()).map(
  ([name, out, failed]): Make => (id) => [
    { type: 'mcp_tool_use', id, name: name.replace(/[^A-Za-z0-9]/g, '_'), server_name: 'server', input: { q: out } },
    { type: 'mcp_tool_result', tool_use_id: id, is_error: failed, content: [{ type: 'text', text: out }] },
  ],
)

const assistantPiece: fc.Arbitrary<Make> = fc.oneof(
  { weight: 3, arbitrary: text.map((b): Make => () => [b]) },
  { weight: 2, arbitrary: citedText.map((b): Make => () => [b]) },
  { weight: 1, arbitrary: webSearch },
  { weight: 1, arbitrary: codeExecution },
  { weight: 1, arbitrary: mcp },
)

/** A tool call of the assistant and what its result in the next user turn holds. */
const toolCall = fc.record({
  name: fc.constantFrom('read_file', 'ls', 'get_weather'),
  input: fc.dictionary(fc.constantFrom('path', 'city', 'n'), fc.oneof(words, fc.integer()), { maxKeys: 2 }),
  result: fc.oneof(
    words,
    fc.tuple(words).map(([t]) => [{ type: 'text', text: t }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } }]),
    searchResult.map((s) => [s]),
  ),
  isError: fc.option(fc.constant(true), { nil: undefined }),
})

const exchange = fc.record({
  user: fc.array(userBlock, { minLength: 1, maxLength: 3 }),
  thought: fc.option(thinking, { nil: undefined }),
  reply: fc.array(assistantPiece, { minLength: 1, maxLength: 3 }),
  call: fc.option(toolCall, { nil: undefined }),
})

/** A content as `toAnthropic` writes it: one plain text block is its string. */
const content = (blocks: ReadonlyArray<Block>): string | ReadonlyArray<Block> => {
  const [only] = blocks
  return blocks.length === 1 && only !== undefined && only.type === 'text' && Object.keys(only).length === 2 ? (only['text'] as string) : blocks
}

/** An Anthropic request body: a system prompt or none, then alternating user and assistant turns. */
export const anthropicBodyArb = fc
  .tuple(
    fc.option(fc.tuple(words, cache).map(([t, c]) => (c === undefined ? t : [withCache({ type: 'text', text: t }, c)])), { nil: undefined }),
    fc.array(exchange, { minLength: 1, maxLength: 4 }),
  )
  .map(([system, exchanges]) => {
    const messages: Array<{ role: 'user' | 'assistant'; content: string | ReadonlyArray<Block> }> = []
    let pending: Block | undefined
    exchanges.forEach((x, i) => {
      messages.push({ role: 'user', content: content([...(pending === undefined ? [] : [pending]), ...x.user]) })
      pending = undefined
      const blocks: Block[] = [...(x.thought === undefined ? [] : [x.thought]), ...x.reply.flatMap((make, j) => make(`srvtoolu_${i}_${j}`))]
      const call = i < exchanges.length - 1 ? x.call : undefined
      if (call !== undefined) {
        const id = `toolu_${i}`
        blocks.push({ type: 'tool_use', id, name: call.name, input: call.input })
        pending = { type: 'tool_result', tool_use_id: id, content: call.result, ...(call.isError === undefined ? {} : { is_error: true }) }
      }
      messages.push({ role: 'assistant', content: content(blocks) })
    })
    return { ...(system === undefined ? {} : { system }), messages }
  })
