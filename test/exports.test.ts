import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT, sourceFiles } from './support/layers.ts'
import { entryPoints, type Exported, exportsOf } from './support/exports.ts'

/**
 * Every name each entry point exports. A name added to or removed from an entry fails this test
 * until it is listed here: the public surface changes on purpose, and the CHANGELOG says how.
 */
const ALLOWED: Readonly<Record<string, ReadonlyArray<string>>> = {
  'chatfold': [
    'compact', 'contextTokens', 'countMessages', 'createBuilder', 'createEngine', 'DecodeFailure',
    'decodeMessages', 'encodeMessages', 'Engine', 'EngineSession', 'Estimator', 'extractiveSummarize',
    'forDisplay', 'forExport', 'forLLM', 'formatAdapterNote', 'formatDecodeFailure', 'forSave',
    'fromAnthropic', 'fromGemini', 'fromModelMessages', 'fromOpenAIChat', 'fromOpenAIResponses', 'image',
    'fromJSONL', 'loadEstimator', 'makeMessage', 'Message', 'Messages', 'parseMessages', 'Part',
    'planCompaction', 'PruneOptions', 'pruneToolResults', 'reasoning', 'renderMarkdown', 'repairToolPairs',
    'Role', 'shouldCompact', 'smartHeuristic', 'Summarizer', 'text', 'textContent', 'textMessage',
    'toAnthropic', 'toGemini', 'toJSONL', 'toModelMessages', 'toolCall', 'toolCalls', 'toolResult',
    'toolResults', 'toOpenAIChat', 'toOpenAIResponses', 'validateToolPairs',
  ],
  'chatfold/message': [
    'addPart', 'CustomPart', 'CustomParts', 'DecodeFailure', 'DecodeIssue', 'decodeMessage', 'decodeMessages',
    'decodePart', 'encodeMessage', 'encodeMessages', 'encodePart', 'file', 'FilePart', 'finish', 'FinishPart',
    'formatDecodeFailure', 'getMeta', 'hasKind', 'hasRole', 'image', 'ImagePart', 'images',
    'isCompactionBoundary', 'isCompactionSummary', 'isEmpty', 'isFile', 'isFinish', 'isFinished', 'isImage',
    'isInternal', 'isProviderPart', 'isReasoning', 'isRole', 'isText', 'isToolCall', 'isToolResult', 'Kind',
    'makeMessage', 'mapParts', 'marshalParts', 'Message', 'MessageC', 'MessageEq', 'MessageFields',
    'Messages', 'MessageWire', 'parseMessages', 'Part', 'PartC', 'PartDefinition', 'partTypes',
    'ProviderFields', 'ProviderPart', 'providerPart', 'reasoning', 'ReasoningPart', 'reasoningParts',
    'reasoningText', 'registerPart', 'Role', 'setMeta', 'text', 'textContent', 'textMessage', 'TextPart',
    'toolCall', 'ToolCallPart', 'toolCalls', 'ToolCallStatus', 'toolResult', 'ToolResultPart', 'toolResults',
    'unmarshalParts', 'upsertToolCall',
  ],
  'chatfold/history': [
    'append', 'at', 'clear', 'createPruner', 'deduplicateSystem', 'dropN', 'exportJSON', 'exportJSONL',
    'ExportMessage', 'exportMessages', 'exportStructuredMessages', 'ExportToolCall', 'forCompaction',
    'forDisplay', 'forExport', 'forExportStructured', 'forLLM', 'renderLogLines', 'forPreservation', 'forSave',
    'renderTranscriptLines', 'HtmlOptions', 'fromJSON', 'fromJSONL', 'keepFirstByRole', 'last',
    'lastCompactionBoundary', 'lastTurns', 'MarkdownOptions', 'parseJSONL', 'PruneBudget', 'PruneChange',
    'pruneEmptyAssistant', 'PruneOptions', 'Pruner', 'PruneReport', 'PruneResult', 'PrunerResult', 'PrunerSeed', 'PrunerState',
    'pruneToolResults', 'pruneToolResultsWithReport', 'render', 'renderHtml', 'renderHtmlWith',
    'renderMarkdown', 'renderMarkdownWith', 'renderMessage', 'RepairReport', 'repairToolPairs', 'toJSON',
    'toJSONL', 'tokensForEstimation', 'ToolPairIssue', 'ToolPairReport', 'totalTokens',
    'trimDuplicateSynthetics', 'truncated', 'truncateResults', 'validateToolPairs', 'withoutInternal',
    'withoutSynthetic', 'withoutThinking',
  ],
  'chatfold/tokens': [
    'backfillToolTokens', 'ContextTokens', 'contextTokens', 'ContextTokensOptions', 'countMessage',
    'countMessages', 'Estimator', 'guardEstimator', 'heuristic', 'IMAGE_TOKENS', 'lastReportedUsage',
    'LastRequestUsage', 'MESSAGE_OVERHEAD', 'MessageUsage', 'ModelUsage', 'RecordedUsage', 'recordedUsage',
    'RecordedUsageOptions', 'ReportedUsage', 'smartHeuristic', 'TokenBreakdown', 'usageCorrected',
    'UsageCorrectedOptions', 'UsageEstimates', 'UsageFigures', 'withTokens',
  ],
  'chatfold/cost': [
    'Charge', 'chargeOf', 'CostFailure', 'CostLedger', 'costLedger', 'CostLedgerOptions', 'CostLine', 'CostSum',
    'CostUsage', 'LongContext', 'LongContextC', 'MissingRateFailure', 'Price', 'PriceC', 'PRICES', 'priceOf',
    'PriceTable', 'PriceTableC', 'withPrices',
  ],
  'chatfold/tokenizer': [
    'DEFAULT_ENCODING', 'EncodingName', 'EncodingNameC', 'loadedEstimator', 'loadEstimator',
  ],
  'chatfold/compaction': [
    'AppliedContextEdit', 'applyContextEdits', 'renderTranscript', 'CLEARED_RESULT', 'ClearThinkingEdit',
    'ClearToolUsesEdit', 'compact', 'CompactionInfo', 'CompactionPlan', 'CompactionReport', 'CompactOptions',
    'CompactProgress', 'CompactResult', 'CONTEXT_MANAGEMENT_BETA', 'ContextEdit', 'ContextEditOptions',
    'ContextEditResult', 'contextManagement', 'extractiveSummarize', 'extractiveSummary', 'isProviderSummary',
    'planCompaction', 'PlanOptions', 'ProviderSummary', 'rebuildAfterCompaction', 'RebuildResult',
    'shouldCompact', 'ShouldCompactOptions', 'Summarizer', 'SummarizerContext', 'SummarizerRequest', 'Summary',
    'SUMMARY_ALLOWANCE', 'SUMMARY_PROMPT', 'SUMMARY_SECTIONS', 'SummaryProblems', 'SummarySection',
    'TranscriptOptions', 'validateSummary', 'WindowBudget',
  ],
  'chatfold/builder': [
    'applyBuilderEvent', 'Builder', 'BuilderEvent', 'BuilderInput', 'BuilderOptions', 'BuilderState',
    'BuilderStateOptions', 'Chat', 'createBuilder', 'createChat', 'HistoryInput', 'LifecycleInput',
    'makeBuilderState', 'parsePartialJSON', 'partialArguments', 'replayBuilderEvents', 'replayBuilderInputs',
    'step', 'StepResult', 'ToolResultFields', 'Turn', 'turns', 'UpdatesOptions', 'WaitOptions',
  ],
  'chatfold/store': [
    'advanceBy', 'advanceTo', 'affectedEntities', 'applyInput', 'applyInputs', 'AuthDecision', 'ChatContent',
    'ChatContentC', 'ChatHandlerOptions', 'ChatInput', 'ChatInputC', 'ChatInputFields', 'ChatMessage',
    'ChatQuery', 'ChatQueryC', 'ChatRole', 'ChatSnapshot', 'ChatSnapshotC', 'ChatSnapshotWire', 'ChatState',
    'ChatStateOptions', 'ChatStore', 'ChatStoreJournal', 'ContentBlock', 'conversationIds',
    'ConversationMetadata', 'createChatHandler', 'createChatStore', 'createSimulator', 'decodeChatContent',
    'decodeQuery', 'formatInput', 'formatStoreFailure', 'durableChatHandler', 'DurableChatStore',
    'DurableStoreOptions', 'emptyState', 'eventHistory', 'EventLimits', 'fromChatContent', 'fromSnapshot',
    'fromStoreMessages', 'generateToken', 'getConversation', 'getConversationMetadata', 'getMessageById',
    'getRecentMessages', 'isStoreError', 'LogEntry', 'makeChatInput', 'memoryStorage', 'openDurableStore',
    'pendingEvents', 'query', 'recentEvents', 'Recovery', 'restrictTo', 'scheduleEvent', 'SimAdvance',
    'SimEvent', 'SimEventStatus', 'SimStep', 'Simulator', 'SimulatorOptions', 'toSnapshot', 'StoredLog',
    'StoredSnapshot', 'StoreError', 'StoreFailure', 'StoreErrorCode', 'StoreStorage', 'submitEvent',
    'toChatContent', 'toChatMessages', 'toStoreMessages', 'validateInput', 'validateState', 'ValidInput',
  ],
  'chatfold/engine': [
    'applyChanges', 'CallOptions', 'createEngine', 'defaultWorkers', 'EncodingOptions', 'Engine',
    'EngineCompactOptions', 'EngineContextOptions', 'EngineError', 'EngineErrorCode', 'EngineHost',
    'EngineMode', 'EngineOptions', 'EnginePlanOptions', 'EngineProgress', 'EnginePruneOptions',
    'EngineSession', 'EngineShouldCompactOptions', 'FileOptions', 'HistoryChanges', 'MessageChange',
    'ProgressOptions', 'RemoteSummarizer', 'SessionCompactResult', 'SessionPlan', 'SessionPruneResult',
    'SessionTokens', 'TokenEstimate', 'webWorkerHost',
  ],
  'chatfold/adapters': [
    'AdapterFailure', 'AdapterNote', 'AdapterOptions', 'AdapterReport', 'AdapterResult', 'AIModelMessage',
    'AIUIMessage', 'AIUIPart', 'AnthropicBlock', 'anthropicInputTokens', 'AnthropicMessage',
    'AnthropicProviderBlock', 'AnthropicRequest', 'AnthropicRequestBody', 'anthropicStream', 'AnthropicTool',
    'appliedEditsOf', 'CacheHints', 'ModelRequest', 'checkRequest', 'contextEditFromPrune', 'ContextEditReport',
    'contextEditReport', 'Converted', 'formatAdapterFailure', 'formatAdapterNote', 'fromAnthropic',
    'fromAnthropicMessage', 'fromAnthropicRequest', 'fromGemini', 'fromGeminiRequest', 'fromGeminiResponse',
    'fromModelMessages', 'fromOpenAIChat', 'fromOpenAIChatCompletion', 'fromOpenAIChatRequest',
    'fromOpenAIResponse', 'fromOpenAIResponses', 'fromOpenAIResponsesRequest', 'fromUIMessages',
    'GeminiContent', 'GeminiPart', 'GeminiRequest', 'GeminiRequestBody', 'geminiStream', 'JsonSchema',
    'OpenAIChatBody', 'OpenAIChatMessage', 'OpenAIChatOptions', 'OpenAIChatRequest', 'openAIChatStream',
    'OpenAIResponsesBody', 'OpenAIResponsesItem', 'OpenAIResponsesOptions', 'OpenAIResponsesRequest',
    'openAIResponsesStream', 'PruneEditOptions', 'RequestSettings',
    'RequestViolation', 'StreamAssembler', 'toAnthropic', 'toAnthropicRequest', 'toGemini', 'toGeminiRequest',
    'toModelMessages', 'ToolChoice', 'ToolDefinition', 'toOpenAIChat', 'toOpenAIChatRequest',
    'toOpenAIResponses', 'toOpenAIResponsesRequest', 'toUIMessages', 'Vendor', 'WireApi', 'withContextEdits',
  ],
  'chatfold/counting': [
    'AnthropicCountClient', 'anthropicCounter', 'cachedCounter', 'calibrationFromUsage', 'countModelRequest',
    'countRequest', 'CountRequestOptions', 'DEFAULT_CALIBRATION', 'GeminiCountClient',
    'geminiCounter', 'OpenAICountClient', 'openAICounter', 'RequestTokens', 'TokenCounter',
  ],
  'chatfold/sessions': [
    'ChatExportConversation', 'ChatExportOptions', 'ChatExportZip', 'ClaudeCodeOptions', 'ClaudeCodeOrigin', 'ClaudeCodeSession', 'ClineTask',
    'fromChatExportZip', 'fromChatGPTExport', 'fromClaudeAiExport', 'fromClaudeCode', 'fromClineTask', 'fromCodexRollout', 'fromCopilotChatSession', 'fromGeminiCliChat',
    'fromOpencodeExport', 'fromPiSession', 'isChatGPTExport', 'isClaudeAiExport', 'isClaudeCodeRecord', 'isClineHistory', 'isCopilotChatSession', 'isPiSessionLine',
    'joinConversations', 'readClaudeCode', 'SessionOptions',
    'SessionRead', 'SkippedLine',
  ],
  'chatfold/node': [
    'appendHistory', 'createNodeEngine', 'FetchHandler', 'fileStorage', 'formatSessionFailure', 'loadHistory',
    'LoadOptions', 'loadStore', 'MovedRecord', 'nodeWorkerHost', 'NodeWorkerHostOptions', 'portEndpoint',
    'repairFileStore', 'RunningServer', 'saveHistory', 'saveStore', 'serve', 'serveChatStore',
    'ServeChatStoreOptions', 'ServedChatStore', 'ServeOptions', 'SessionFailure', 'StoreRepair',
    'toNodeListener', 'TornTail', 'writeAtomic',
  ],
  'chatfold/cloudflare': [
    'ChatStoreObject', 'chatStoreObject', 'ChatStoreObjectClass', 'ChatStoreObjectOptions', 'ChatStoreWorker', 'ChatStoreWorkerOptions',
    'chatStoreWorker', 'DurableObjectNamespaceLike', 'DurableObjectStateLike', 'DurableObjectStorageLike',
    'sqlStorage', 'SqlStorageLike', 'SqlStorageOptions',
  ],
  'chatfold/deno': [
    'KvAtomicLike', 'kvChatServer', 'KvChatServerOptions', 'KvLike', 'kvStorage', 'KvStorageOptions',
    'newOwnerId',
  ],
  'chatfold/postgres': [
    'migratePostgres', 'openPostgresStore', 'PgClientLike', 'PgPoolLike', 'PgResultLike', 'POSTGRES_SCHEMA_VERSION',
    'postgresChatHandler', 'PostgresChatStore', 'PostgresStoreOptions', 'ServePostgresStoreOptions',
    'servePostgresStore',
  ],
  'chatfold/worker': [
  ],
  'chatfold/summarize/ai-sdk': [
    'aiSdkSummarizer', 'AskModel', 'modelSummarizer', 'ModelSummarizerOptions', 'PREFIX_INSTRUCTION', 'SummaryTurn',
  ],
  'chatfold/summarize/openai': [
    'AskModel', 'modelSummarizer', 'ModelSummarizerOptions', 'openAICompaction', 'OpenAICompactionClient',
    'OpenAICompactionOptions', 'openAISummarizer', 'OpenAISummarizerClient', 'PREFIX_INSTRUCTION', 'SummaryTurn',
  ],
  'chatfold/summarize/anthropic': [
    'ANTHROPIC_COMPACTION_BETA', 'anthropicCompaction', 'AnthropicCompactionClient', 'AnthropicCompactionOptions',
    'anthropicSummarizer', 'AnthropicSummarizerClient', 'AskModel', 'modelSummarizer', 'ModelSummarizerOptions',
    'PREFIX_INSTRUCTION', 'SummaryTurn',
  ],
  'chatfold/ai-sdk': [
    'CallAnswer', 'callCostOf', 'CallCostFailure', 'chatStoreContextState', 'ChatStoreContextStateOptions', 'ContextError', 'ContextErrorCode', 'contextMiddleware',
    'ContextMiddlewareOptions', 'ContextOptions', 'contextPrepareStep', 'ContextPrepareStepOptions', 'ContextRecord',
    'contextRecordOf', 'ContextStateStore', 'fromLanguageModelPrompt', 'HttpStoreOptions', 'InProcessStoreOptions',
    'LanguageModelCallOptions', 'LanguageModelPrompt', 'memoryContextState', 'providerOfModel', 'SaveReport',
    'sinceCompaction', 'toLanguageModelPrompt', 'toolChoiceOf', 'toolDefinitionsOf', 'UIMessageStore', 'uiMessageStore',
    'UIMessageStoreError', 'UIMessageStoreErrorCode',
  ],
  'chatfold/openai-agents': [
    'ChatLog', 'ChatLogRead', 'ChatLogRecord', 'ChatStoreSession', 'chatStoreSession',
    'ChatStoreSessionOptions', 'httpChatLog', 'HttpChatLogOptions', 'isOpenAIModel',
    'SessionCompactionOptions', 'storeChatLog',
  ],
  'chatfold/claude-agent-sdk': [
    'ChatLog', 'ChatLogRead', 'ChatLogRecord', 'ChatStoreSessionStore', 'chatStoreSessionStore',
    'httpChatLog', 'HttpChatLogOptions', 'storeChatLog',
  ],
}

/** The concept entries: each exports only what its own folder declares. */
const CONCEPTS = ['message', 'tokens', 'tokenizer', 'cost', 'history', 'compaction', 'builder', 'store', 'engine', 'adapters', 'counting', 'sessions']

/** About a page of names: an entry longer than this is two concepts. */
const MAX_NAMES = 80

/**
 * Entries allowed past `MAX_NAMES`, each with its own cap and why. None is now: chatfold/message, the
 * widest concept, fits since its role and kind predicates became `hasRole` and `hasKind`.
 */
const LONGER: Readonly<Record<string, { readonly max: number; readonly why: string }>> = {}

const specifier = (subpath: string): string => (subpath === '.' ? 'chatfold' : `chatfold/${subpath.slice(2)}`)

describe('the public surface', () => {
  let entries: ReadonlyMap<string, ReadonlyArray<Exported>>
  beforeAll(() => {
    const points = entryPoints()
    const byFile = exportsOf([...new Set(points.values())])
    entries = new Map([...points].map(([subpath, file]) => [specifier(subpath), byFile.get(file) ?? []]))
  }, 60_000)

  it('each entry exports the names listed for it, and no other', () => {
    expect([...entries.keys()].sort()).toEqual(Object.keys(ALLOWED).sort())
    for (const [entry, names] of entries) expect({ entry, names: names.map((n) => n.name).sort() }).toEqual({ entry, names: [...(ALLOWED[entry] ?? [])].sort() })
  })

  it(`each entry exports at most ${MAX_NAMES} names (or the cap it is given, with its reason)`, () => {
    const long = [...entries].filter(([entry, names]) => names.length > (LONGER[entry]?.max ?? MAX_NAMES)).map(([entry, names]) => `${entry}: ${names.length} names, over ${LONGER[entry] === undefined ? MAX_NAMES : `${LONGER[entry].max} (${LONGER[entry].why})`}`)
    expect(long).toEqual([])
  })

  it('no declaration is exported under two names', () => {
    const names = new Map<string, Set<string>>()
    for (const list of entries.values()) for (const n of list) names.set(`${n.file}#${n.declared}`, (names.get(`${n.file}#${n.declared}`) ?? new Set()).add(n.name))
    expect([...names].filter(([, set]) => set.size > 1).map(([at, set]) => `${at}: ${[...set].join(', ')}`)).toEqual([])
    // and no name stands for two declarations across entries
    const places = new Map<string, Set<string>>()
    for (const list of entries.values()) for (const n of list) places.set(n.name, (places.get(n.name) ?? new Set()).add(`${n.file}#${n.declared}`))
    expect([...places].filter(([, set]) => set.size > 1).map(([name, set]) => `${name}: ${[...set].join(', ')}`)).toEqual([])
  })

  it('no entry reaches an internal module, and each concept entry exports only what its folder declares', () => {
    const internal = [...entries].flatMap(([entry, list]) => list.filter((n) => n.file.startsWith('src/internal/')).map((n) => `${entry}: ${n.name}`))
    expect(internal).toEqual([])
    for (const concept of CONCEPTS) {
      const list = entries.get(`chatfold/${concept}`) ?? []
      expect(list.length).toBeGreaterThan(0)
      expect(list.filter((n) => !n.file.startsWith(`src/${concept}/`)).map((n) => `${n.name} (${n.file})`)).toEqual([])
    }
  })

  it('every exported function and value has an example in its doc comment', () => {
    const values = [...entries].flatMap(([entry, list]) => list.filter((n) => !n.type && n.example !== undefined).map((n) => ({ entry, ...n })))
    expect(values.length).toBeGreaterThan(200)
    expect(values.filter((n) => n.example === false).map((n) => `${n.entry}: ${n.name}`)).toEqual([])
  })

  it('the main entry is a selection of the concept entries', () => {
    const offered = new Set(CONCEPTS.flatMap((c) => (entries.get(`chatfold/${c}`) ?? []).map((n) => `${n.name}@${n.file}#${n.declared}`)))
    const main = entries.get('chatfold') ?? []
    expect(main.length).toBeGreaterThan(20)
    expect(main.filter((n) => !offered.has(`${n.name}@${n.file}#${n.declared}`)).map((n) => n.name)).toEqual([])
  })
})

describe('the versions the doc comments name', () => {
  /** A version as numbers, for comparing. */
  const parts = (v: string): ReadonlyArray<number> => v.split('.').map(Number)
  const above = (a: string, b: string): boolean => {
    const [x, y] = [parts(a), parts(b)]
    for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0)
    return false
  }

  it("no @since is above package.json's version", () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version
    const tags = sourceFiles().flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/@since\s+(\S+)/g)].map((m) => ({ file, since: (m[1] ?? '').replace(/\*\/$/, '') })),
    )
    expect(tags.length).toBeGreaterThan(300)
    expect(tags.filter((t) => !/^\d+\.\d+\.\d+$/.test(t.since) || above(t.since, version)).map((t) => `${t.file}: @since ${t.since} (the package is ${version})`)).toEqual([])
  })
})
