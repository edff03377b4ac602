export type {
  AsrFault,
  AsrFaultPoint,
  AsrTestConnection,
  AsrTestServer,
  AsrTestServerOptions,
  HandshakeRefusal,
} from './asr-test-server.ts';
export { createAsrTestServer } from './asr-test-server.ts';
export type {
  ResponsePayloadOptions,
  ResponseUtterance,
  ScriptedUtterance,
} from './response-builder.ts';
export { buildAsrResponsePayload, recogniseScript } from './response-builder.ts';
