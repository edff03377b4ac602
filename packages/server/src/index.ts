// @class-assistant/server — every public export, by name.

export type { AppServices, BuildAppOptions } from './app.ts';
export { buildApp } from './app.ts';
export type { CliCommand, CliOptions } from './cli-options.ts';
export { CliUsageError, defaultAppFolder, parseCli, USAGE } from './cli-options.ts';
export type { ErrorBody, ServerErrorCode, ServerErrorDetails } from './errors.ts';
export { errorBody, isServerError, ServerError } from './errors.ts';
export type {
  EventHub,
  LiveEvent,
  LiveEventMap,
  LiveEventName,
  MonitorStatusPayload,
} from './events/event-hub.ts';
export { createEventHub } from './events/event-hub.ts';
export type { PromptName } from './llm/class-ai.ts';
export type { LlmClientFactory, LlmConfig } from './llm/llm-client.ts';
export { defaultLlmClientFactory } from './llm/llm-client.ts';
export { sanitizeMaterialName } from './material/cite-store.ts';
export type { ExtractedMaterial, MaterialKind } from './material/extract-material.ts';
export { detectMaterialKind, extractMaterial, pageMarker } from './material/extract-material.ts';
export type { ZipLimits } from './material/zip-guard.ts';
export { DEFAULT_ZIP_LIMITS, inspectZip } from './material/zip-guard.ts';
export {
  defaultRecognizerDefinitions,
  unimplementedRecognizer,
} from './recognizers/default-recognizers.ts';
export type { MockRecognizerOptions } from './recognizers/mock-recognizer.ts';
export {
  BUNDLED_MOCK_SCRIPT,
  createMockRecognizer,
  mockRecognizerDefinition,
  parseMockScript,
} from './recognizers/mock-recognizer.ts';
export type {
  RecognizedUtterance,
  Recognizer,
  RecognizerAvailability,
  RecognizerContext,
  RecognizerDefinition,
  RecognizerEvent,
  RecognizerLogger,
  RecognizerRegistry,
} from './recognizers/recognizer.ts';
export { createRecognizerRegistry } from './recognizers/recognizer.ts';
export { allowedOrigins, isAllowedHost, SHELL_ORIGINS } from './security/local-guard.ts';
export type { RunningServer } from './server.ts';
export { StartupError, startServer } from './server.ts';
export type { EnvDocument, EnvLine } from './settings/env-file.ts';
export { getEnvValue, parseEnv, serializeEnv, setEnvValue } from './settings/env-file.ts';
export type { SettingApplies, SettingDefinition } from './settings/settings-schema.ts';
export { ASR_MODES, SETTING_DEFINITIONS } from './settings/settings-schema.ts';
export type {
  ResolvedSettings,
  SettingProblem,
  SettingsSaveResult,
  SettingsStore,
  SettingsView,
} from './settings/settings-store.ts';
export { createSettingsStore, maskSecret } from './settings/settings-store.ts';
export { COMPATIBLE_CLIENT_VERSION, SERVER_VERSION } from './version.ts';
