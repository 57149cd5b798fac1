export type { DamagedTranscript } from "./damaged-transcripts.ts";
export { damagedTranscriptFileName, damagedTranscripts } from "./damaged-transcripts.ts";
export { gitSync } from "./git-sync.ts";
export { KNIGHTCODE_BIN, KNIGHTCODE_MAIN, KNIGHTCODE_TARGET, knightcodeArgv } from "./knightcode-target.ts";
export { type ServerChild, spawnServerChild } from "./listener-child.ts";
export { type McpHttpTestServer, startMcpHttpServer } from "./mcp-http-server.ts";
export {
  EVERYTHING_ENTRY,
  everythingServer,
  exitsDuringCallServer,
  FILESYSTEM_ENTRY,
  filesystemServer,
  hangingServer,
  junkThenEverythingServer,
  missingCommandServer,
  type TestStdioServer,
} from "./mcp-servers.ts";
export { mockDefaultAgentDir } from "./mock-agent-dir.ts";
export type { MockModelServer } from "./mock-model-server.ts";
export { startMockModelServer, wireFormatOf } from "./mock-model-server.ts";
export type { MockModelsJsonOptions } from "./models-json.ts";
export { MOCK_MODEL_ID, MOCK_PROVIDERS, mockModelsJson } from "./models-json.ts";
export { collectOutput, type ProcessOutput } from "./process-output.ts";
export { renderAnthropic } from "./render-anthropic.ts";
export { renderChatCompletions } from "./render-chat-completions.ts";
export { renderResponses } from "./render-responses.ts";
export type { RecordedStream, ReplayExchange, ReplayRejection, ReplayServer } from "./replay-server.ts";
export { replayChunks, startReplayServer } from "./replay-server.ts";
export type {
  MockError,
  MockErrorKind,
  MockResponder,
  MockScript,
  MockStep,
  MockUsage,
  MockWireFormat,
  RecordedRequest,
} from "./script.ts";
export { splitIntoDeltas, textReply, toolCallReply } from "./script.ts";
export type { CorpusReply, ExpectedReply, StreamCase } from "./stream-corpus/index.ts";
export {
  allOf,
  CORPUS_NOTES_FILE,
  CORPUS_PROMPT,
  corpusApi,
  corpusModelsJson,
  reasoningContentCameBack,
  STREAM_CORPUS,
  thoughtSignaturesCameBack,
  toolResultsFor,
} from "./stream-corpus/index.ts";
export { streamLines } from "./stream-lines.ts";
export { type CuttableProxy, startCuttableProxy } from "./tcp-proxy.ts";
export type { TempAgentDir, TempAgentDirOptions } from "./temp-agent-dir.ts";
export { tempAgentDir } from "./temp-agent-dir.ts";
export type { RenderedError } from "./vendor-errors.ts";
export { renderVendorError, vendorErrorObject } from "./vendor-errors.ts";
