export type {
  AsrTestServer,
  AsrTestServerOptions,
  HandshakeRefusal,
  ReplyCompression,
} from './asr-test-server.ts';
export { createAsrTestServer } from './asr-test-server.ts';
export type { AsrFault, AsrFaultPoint } from './fault-injection.ts';
export type {
  ResponsePayloadOptions,
  ResponseUtterance,
  ScriptedUtterance,
} from './response-builder.ts';
export { buildAsrResponsePayload, recogniseScript } from './response-builder.ts';
export type { AsrRequestWarning, AsrRequestWarningKind } from './service-request.ts';
export type { AsrTestConnection } from './test-connection.ts';
