// The app window's side of WS /api/ws/capture, as the desktop UI speaks it: a real socket that
// says hello and sends 16-bit PCM frames.

import WebSocket from 'ws';
import { samplesToBytes } from '../../src/audio/pcm.ts';
import type { CaptureServerMessage } from '../../src/events/live-events.ts';

/** A connected window. */
export interface CaptureWindow {
  socket: WebSocket;
  /** Text messages the backend sent, parsed. */
  messages: CaptureServerMessage[];
  /** Resolves with the first message (from the start) of this type. */
  next<Type extends CaptureServerMessage['type']>(
    type: Type,
  ): Promise<Extract<CaptureServerMessage, { type: Type }>>;
  /** Resolves when the backend closes the socket. */
  closed: Promise<{ code: number; reason: string }>;
  hello(format?: { device?: string; sampleRate?: number; channels?: 1 | 2 }): void;
  /** Sends samples (interleaved when stereo) in frames of `chunkBytes`, as fast as the socket takes them. */
  sendAudio(samples: Int16Array, chunkBytes?: number): Promise<void>;
  close(): void;
}

/** Connects a window to `base` (http://127.0.0.1:port); rejects when the upgrade is refused. */
export function connectCaptureWindow(
  base: string,
  headers: { origin?: string; host?: string } = {},
): Promise<CaptureWindow> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/api/ws/capture`, {
    ...(headers.origin ? { origin: headers.origin } : {}),
    ...(headers.host ? { headers: { host: headers.host } } : {}),
  });
  const messages: CaptureServerMessage[] = [];
  const waiters = new Set<() => void>();
  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    messages.push(JSON.parse(data.toString()) as CaptureServerMessage);
    for (const waiter of [...waiters]) waiter();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const window: CaptureWindow = {
    socket,
    messages,
    next(type) {
      return new Promise((resolve) => {
        const check = () => {
          const found = messages.find((message) => message.type === type);
          if (!found) return;
          waiters.delete(check);
          resolve(found as Extract<CaptureServerMessage, { type: typeof type }>);
        };
        waiters.add(check);
        check();
      });
    },
    closed,
    hello(format = {}) {
      socket.send(
        JSON.stringify({
          type: 'hello',
          device: format.device ?? 'Test microphone',
          sample_rate: format.sampleRate ?? 16000,
          channels: format.channels ?? 1,
        }),
      );
    },
    async sendAudio(samples, chunkBytes = 3200) {
      const bytes = samplesToBytes(samples);
      for (let offset = 0; offset < bytes.byteLength; offset += chunkBytes) {
        await new Promise<void>((resolve, reject) =>
          socket.send(bytes.subarray(offset, offset + chunkBytes), { binary: true }, (error) =>
            error ? reject(error) : resolve(),
          ),
        );
      }
    },
    close: () => socket.close(),
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(window));
    socket.once('unexpected-response', (_request, response) =>
      reject(new Error(`upgrade refused: HTTP ${response.statusCode}`)),
    );
    socket.once('error', reject);
  });
}
