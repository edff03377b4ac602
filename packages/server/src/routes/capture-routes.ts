import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { webSocketDocumentation } from './schemas.ts';

/** WS /api/ws/capture: the app window's microphone (AUDIO_INPUT=app); see audio/app-capture.ts. */
export const captureRoutes: FastifyPluginAsyncZod = async (app) => {
  const { capture } = app.classAssistant;
  // Behind the same Host and Origin checks as every route (security/local-guard.ts): a page of
  // another site cannot feed the class its audio.
  app.get('/api/ws/capture', { websocket: true }, (socket) => capture.attach(socket));
};

/** The capture socket in the OpenAPI document. */
export const CAPTURE_SOCKET_DOCUMENTATION = webSocketDocumentation(
  '/api/ws/capture',
  'The app window’s microphone (WebSocket, AUDIO_INPUT=app)',
  'Upgrade to a WebSocket (ws://127.0.0.1:8765/api/ws/capture). The desktop UI captures the microphone of its window and streams it here while a class with AUDIO_INPUT=app runs (local, stream and cloud modes listen to it as to a microphone). The backend first sends `{"type":"format","sample_rate":16000,"channels":1,"chunk_bytes":3200}` (AUDIO_SAMPLE_RATE, AUDIO_CHANNELS, AUDIO_CHUNK_SIZE). Once its microphone runs the window sends `{"type":"hello","device":"…","sample_rate":16000,"channels":1}` (the format it really sends; other rates are converted), then binary frames of little-endian 16-bit PCM, channels interleaved, of chunk_bytes each. A window that cannot capture sends `{"type":"problem","problem":"permission-denied"|"no-device"|"device-lost"|"failed","message":"…"}`. Malformed text, or audio before hello, gets `{"type":"error",code,message}` and the socket is closed (1008). One window at a time: a new connection takes over, and the previous one gets `{"type":"replaced"}` and is closed (4001). The `capture.changed` live event reports the state, including audio that stopped for 2 s (window closed, hidden and throttled). Refused with 403 from a foreign Origin or Host.',
);
