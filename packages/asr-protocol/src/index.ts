export type { PaceOptions, Packetizer, PacketOptions, PcmFormat } from './audio-packets.ts';
export {
  createPacketizer,
  DEFAULT_PACKET_MS,
  pacePackets,
  packetBytes,
  pcmBytesPerMs,
  splitPcm,
} from './audio-packets.ts';
export type {
  BuiltDialogContext,
  DialogContext,
  DialogContextItem,
  HotwordsContext,
} from './corpus-context.ts';
export {
  buildDialogContext,
  buildHotwordsContext,
  CONTEXT_LIMITS,
  checkCorpusContext,
  checkHotwordLimit,
  checkSensitiveWordsFilter,
} from './corpus-context.ts';
export type { AsrEndpoint } from './endpoints.ts';
export {
  ASR_ENDPOINTS,
  DEFAULT_ASR_BASE_URL,
  endpointPath,
  endpointUrl,
  isAsrEndpoint,
} from './endpoints.ts';
export type { AsrErrorCode, AsrIssue, AsrProtocolErrorDetails, RawFrameInfo } from './errors.ts';
export { AsrProtocolError, isAsrProtocolError } from './errors.ts';
export type {
  AsrFrame,
  AudioOnlyRequestFrame,
  Compression,
  DecodeFrameEnvelopeOptions,
  DecodeFrameOptions,
  ErrorFrame,
  FrameEnvelope,
  FrameFlags,
  FrameType,
  FullClientRequestFrame,
  FullServerResponseFrame,
  JsonObject,
  JsonValue,
  Serialization,
  SerializedPayload,
} from './frame-codec.ts';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  decodeFrame,
  decodeFrameEnvelope,
  encodeFrame,
  FRAME_FLAGS,
  flagsAreLast,
  flagsHaveSequence,
  MESSAGE_TYPES,
  parseJsonPayload,
} from './frame-codec.ts';
export type { AsrRequest } from './request-schema.ts';
export {
  ASR_LANGUAGES,
  asrAudioSchema,
  asrCorpusSchema,
  asrRequestOptionsSchema,
  asrRequestSchema,
  asrUserSchema,
  createAsrRequestSchema,
  validateAsrRequest,
} from './request-schema.ts';
export type {
  AsrAdditions,
  AsrResponse,
  AsrResult,
  AsrUtterance,
  AsrWord,
} from './response-schema.ts';
export {
  asrAdditionsSchema,
  asrResponseSchema,
  asrResultSchema,
  asrUtteranceSchema,
  asrWordSchema,
  responseResults,
} from './response-schema.ts';
export {
  ASR_SERVICE_CODES,
  describeServiceCode,
  isRetryableServiceCode,
} from './service-codes.ts';
export { AsrStream, connectAsrStream } from './stream-client.ts';
export type {
  AsrFinalResult,
  AsrIgnoreReason,
  AsrStreamEvent,
  AsrStreamEventMap,
  AsrStreamEventOf,
  AsrStreamEventType,
  AsrStreamState,
  AsrStreamStats,
} from './stream-events.ts';
export { ASR_STREAM_EVENT_TYPES } from './stream-events.ts';
export type { AsrStreamOptions } from './stream-options.ts';
export { DEFAULT_ASR_REQUEST, DEFAULT_STREAM_OPTIONS } from './stream-options.ts';
export { estimateTokens } from './tokens.ts';
export type { UtteranceTracker, UtteranceUpdate } from './utterance-tracker.ts';
export { createUtteranceTracker } from './utterance-tracker.ts';
export type { AsrVendorFields } from './vendor-fields.ts';
export type { PcmWavAudio, WavAudio } from './wav.ts';
export { encodeWav, parsePcmWav, parseWav, readWavFile } from './wav.ts';
export type {
  WebSocketConstructor,
  WebSocketLike,
  WebSocketLikeOptions,
} from './web-socket-like.ts';
