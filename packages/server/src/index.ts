// @class-assistant/server — every public export, by name.

export { buildApp } from './app.ts';
export type { AppServices, BuildAppOptions } from './app-services.ts';
export type {
  AppCapture,
  AppCaptureOptions,
  CaptureFormat,
  CaptureSocket,
  CaptureSocketData,
} from './audio/app-capture.ts';
export { createAppCapture, DEFAULT_APP_CAPTURE_OPTIONS } from './audio/app-capture.ts';
export type {
  AudioChildFailure,
  AudioChildMessage,
  AudioChildRequest,
  AudioDeviceInfo,
} from './audio/audio-child.ts';
export { AUDIO_CHILD_FLAG, runAudioChild } from './audio/audio-child.ts';
export type { AudioInput } from './audio/audio-input.ts';
export { describeAudioInput, parseAudioInput } from './audio/audio-input.ts';
export type {
  AudioChunk,
  AudioSource,
  AudioSourceInfo,
  AudioSourceOptions,
} from './audio/audio-source.ts';
export {
  audioInputAvailability,
  captureFormat,
  createAudioSource,
} from './audio/audio-source.ts';
export type {
  EnergyVadOptions,
  PhraseEndReason,
  VadPhrase,
  VadTraceEntry,
} from './audio/energy-vad.ts';
export { EnergyVad, SEED_VAD_PARAMETERS } from './audio/energy-vad.ts';
export type { MicrophoneProbe, MicrophoneProbeOptions } from './audio/microphone-probe.ts';
export { probeMicrophone } from './audio/microphone-probe.ts';
export type { MicrophoneSourceOptions } from './audio/microphone-source.ts';
export { createMicrophoneSource } from './audio/microphone-source.ts';
export type { NativeModuleStatus } from './audio/native.ts';
export {
  NATIVE_MODULES_VARIABLE,
  nativeModulesFolder,
  nativeModulesReport,
} from './audio/native.ts';
export type { PcmFormat, Resampler } from './audio/pcm.ts';
export {
  createRecognizerConverter,
  createResampler,
  frameEnergy,
  RECOGNIZER_SAMPLE_RATE,
} from './audio/pcm.ts';
export type { WavFileSourceOptions } from './audio/wav-file-source.ts';
export { createWavFileSource } from './audio/wav-file-source.ts';
export type { CliCommand, CliOptions } from './cli-options.ts';
export { CliUsageError, defaultAppFolder, parseCli, USAGE } from './cli-options.ts';
export type { ErrorBody, ServerErrorCode, ServerErrorDetails } from './errors.ts';
export { ERROR_STATUS, errorBody, isServerError, ServerError } from './errors.ts';
export type { EventHub, LiveEvent } from './events/event-hub.ts';
export { createEventHub } from './events/event-hub.ts';
export type {
  AlertLevel,
  CaptureProblem,
  CaptureServerMessage,
  CaptureStatus,
  CaptureWindowMessage,
  ErrorRaisedPayload,
  ErrorSource,
  KeywordAlertPayload,
  LiveEventMap,
  LiveEventName,
  LiveMessage,
  MonitorStatusPayload,
  StreamOpenedPayload,
  TranscriptLine,
} from './events/live-events.ts';
export { LIVE_EVENTS, liveEventsTable } from './events/live-events.ts';
export type { Language, Localized, MessageText } from './language.ts';
export { preferredLanguage } from './language.ts';
export type { ClassAlert, ClassMeta } from './library/class-folder.ts';
export type { ExportFormat } from './library/export-class.ts';
export { EXPORT_FORMATS } from './library/export-class.ts';
export type {
  ClassDetail,
  ClassSummary,
  IndexingProgress,
  Library,
  LibraryChange,
  LibraryLogger,
  LibraryOptions,
} from './library/library.ts';
export { openLibrary } from './library/library.ts';
export type { SearchHit } from './library/library-index.ts';
export type { LlmClientFactory, LlmConfig } from './llm/llm-client.ts';
export { defaultLlmClientFactory } from './llm/llm-client.ts';
export type { PromptName } from './llm/prompts.ts';
export { sanitizeMaterialName } from './material/cite-store.ts';
export type { ExtractedMaterial, MaterialKind } from './material/extract-material.ts';
export { detectMaterialKind, extractMaterial, pageMarker } from './material/extract-material.ts';
export type { ZipLimits } from './material/zip-guard.ts';
export { DEFAULT_ZIP_LIMITS, inspectZip } from './material/zip-guard.ts';
export type {
  DownloadedFile,
  DownloadFileOptions,
  DownloadNetwork,
} from './models/download-file.ts';
export {
  DEFAULT_DOWNLOAD_MAX_BYTES,
  DEFAULT_DOWNLOAD_STALL_MS,
  downloadFile,
} from './models/download-file.ts';
export type {
  ModelCatalogueEntry,
  ModelEngine,
  ModelFile,
  ModelLanguage,
  ModelSource,
  ModelSourceKind,
  PublishedAccuracy,
} from './models/model-catalogue.ts';
export {
  DEFAULT_MODELS_BASE_URL,
  folderSource,
  huggingFaceSources,
  isUnchecked,
  mirrorSource,
  OFFICIAL_MODEL_CATALOGUE,
  sourcesOf,
} from './models/model-catalogue.ts';
export type {
  DownloadStart,
  ModelEvent,
  ModelListItem,
  ModelManager,
  ModelManagerOptions,
  ModelRequest,
} from './models/model-manager.ts';
export { createModelManager } from './models/model-manager.ts';
export type { InstalledModel } from './models/model-store.ts';
export { listInstalledModels, MODEL_INFO_FILE, modelLayout } from './models/model-store.ts';
export {
  readSherpaModel,
  type SherpaModel,
  sherpaModelProblem,
} from './models/sherpa-model.ts';
export type { UnpackLimits, UnpackResult } from './models/unpack-archive.ts';
export { DEFAULT_UNPACK_LIMITS, unpackArchive } from './models/unpack-archive.ts';
export {
  cloudRecognizerDefinition,
  createCloudRecognizerDefinition,
} from './recognizers/cloud-definition.ts';
export type { CloudAsrClientFactory } from './recognizers/cloud-recognizer.ts';
export { transcriptionPrompt } from './recognizers/cloud-recognizer.ts';
export type {
  DashscopeErrorCode,
  DashscopeTask,
  DashscopeTaskOptions,
} from './recognizers/dashscope-client.ts';
export {
  DashscopeError,
  isDashscopeError,
  openDashscopeTask,
} from './recognizers/dashscope-client.ts';
export { dashscopeRecognizerDefinition } from './recognizers/dashscope-definition.ts';
export type {
  DashscopeEvent,
  DashscopeSentence,
  DashscopeTaskParameters,
} from './recognizers/dashscope-protocol.ts';
export {
  finishTaskInstruction,
  readDashscopeEvent,
  runTaskInstruction,
} from './recognizers/dashscope-protocol.ts';
export type { DashscopeRecognizerOptions } from './recognizers/dashscope-recognizer.ts';
export {
  createDashscopeRecognizer,
  DASHSCOPE_PACKET_MS,
  DASHSCOPE_TASK_PARAMETERS,
} from './recognizers/dashscope-recognizer.ts';
export { defaultRecognizerDefinitions } from './recognizers/default-recognizers.ts';
export type {
  OfflineEngine,
  OfflineEngineDefinition,
} from './recognizers/engines/offline-engine.ts';
export { normalizeRecognizedText } from './recognizers/engines/offline-engine.ts';
export {
  DEFAULT_POCKETSPHINX_MODEL,
  pocketsphinxEngineDefinition,
} from './recognizers/engines/pocketsphinx-engine.ts';
export { sherpaEngineDefinition } from './recognizers/engines/sherpa-engine.ts';
export {
  VOSK_MODEL_HELP,
  voskEngineDefinition,
  voskModelProblem,
} from './recognizers/engines/vosk-engine.ts';
export {
  classHotwords,
  contextHotwords,
  extractMaterialTerms,
  fitHotwords,
  materialHotwords,
} from './recognizers/hotwords.ts';
export type { LocalModelChoice, LocalModelOptions } from './recognizers/local-model.ts';
export { chooseLocalModel } from './recognizers/local-model.ts';
export {
  createLocalRecognizerDefinition,
  localRecognizerDefinition,
  releaseCachedOfflineEngine,
} from './recognizers/local-recognizer.ts';
export type { MockRecognizerOptions } from './recognizers/mock-recognizer.ts';
export {
  BUNDLED_MOCK_SCRIPT,
  createMockRecognizer,
  mockRecognizerDefinition,
  parseMockScript,
} from './recognizers/mock-recognizer.ts';
export type {
  PhraseRecognizerOptions,
  PhraseTranscriber,
} from './recognizers/phrase-recognizer.ts';
export {
  createPhraseRecognizer,
  isPhraseTranscriptionError,
  PhraseTranscriptionError,
} from './recognizers/phrase-recognizer.ts';
export type {
  Recognizer,
  RecognizerAvailability,
  RecognizerContext,
  RecognizerDefinition,
  RecognizerEvent,
  RecognizerInput,
  RecognizerLogger,
  RecognizerNeeds,
  RecognizerRegistry,
} from './recognizers/recognizer.ts';
export { createErrorReporter, createRecognizerRegistry } from './recognizers/recognizer.ts';
export type {
  OnlineService,
  ResendingRecognizerOptions,
  ServiceConnection,
  ServiceConnectionEvents,
  ServiceFailure,
} from './recognizers/resending-recognizer.ts';
export {
  createResendingRecognizer,
  DEFAULT_RESENDING_OPTIONS,
} from './recognizers/resending-recognizer.ts';
export { createSherpaRecognizer } from './recognizers/sherpa-recognizer.ts';
export { streamRecognizerDefinition } from './recognizers/stream-definition.ts';
export type { StreamRecognizerOptions } from './recognizers/stream-recognizer.ts';
export {
  buildStreamRequest,
  createStreamRecognizer,
  STREAM_PACKET_MS,
  STREAM_REQUEST_SETTINGS,
} from './recognizers/stream-recognizer.ts';
export { SHUTDOWN_TOKEN_FILE } from './routes/desktop-routes.ts';
export {
  isSecretName,
  looksLikeSecretValue,
  maskSecretsInText,
} from './secret-rules.ts';
export {
  allowedOrigins,
  isAllowedHost,
  isOriginalClient,
  ORIGINAL_CLIENT_ORIGINS,
  SHELL_ORIGINS,
} from './security/local-guard.ts';
export type { CommandRunner, FilePrivacyOptions, PrivacyLogger } from './security/private-file.ts';
export type { RunningServer } from './server.ts';
export { StartupError, startServer } from './server.ts';
export type { EnvDocument, EnvLine } from './settings/env-file.ts';
export { getEnvValue, parseEnv, serializeEnv, setEnvValue } from './settings/env-file.ts';
export type { SecretDestination } from './settings/secret-destinations.ts';
export { checkSecretDestinations, secretDestinations } from './settings/secret-destinations.ts';
export { isSecretKey } from './settings/secret-mask.ts';
export type {
  AsrMode,
  SettingApplies,
  SettingChoice,
  SettingDefinition,
  SettingGroup,
} from './settings/settings-schema.ts';
export {
  ASR_MODE_ALIASES,
  ASR_MODE_CHOICES,
  ASR_MODES,
  SETTING_DEFINITIONS,
  SETTING_GROUPS,
  settingDefinition,
} from './settings/settings-schema.ts';
export type {
  ResolvedSettings,
  SettingProblem,
  SettingsSaveResult,
  SettingsStore,
  SettingsView,
} from './settings/settings-store.ts';
export { createSettingsStore, maskSecret } from './settings/settings-store.ts';
export { BUNDLED_APP_VERSION, COMPATIBLE_CLIENT_VERSION, SERVER_VERSION } from './version.ts';
