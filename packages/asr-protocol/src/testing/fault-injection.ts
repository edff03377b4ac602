// Faults the test server injects into a connection: when each one fires and what it does. The
// connection supplies the means (a FaultTarget); the meaning of every fault lives here, next to
// the response builder, so a test can read both in one place.
import type { FrameFlags, JsonObject } from '../frame-codec.ts';

/**
 * When a fault fires, per connection, once:
 * - `{ afterRequest: true }`: right after the reply to the full client request;
 * - `{ afterPackets: n }`: on the n-th audio packet (1-based), before its reply;
 * - `{ afterAudioMs: ms }`: on the first audio packet that brings the audio received to `ms`;
 * - `{ onLastPacket: true }`: on the last packet, before (or instead of) the final response.
 */
export type AsrFaultPoint =
  | { afterRequest: true }
  | { afterPackets: number }
  | { afterAudioMs: number }
  | { onLastPacket: true };

interface FaultCommon {
  at: AsrFaultPoint;
  /** Only on this connection (1-based, in order of arrival); default every connection. */
  connection?: number;
}

/**
 * A fault to inject:
 * - `error`: an error frame with `code` (and `message`), then the connection is closed;
 * - `empty-payload` / `non-json-payload`: an extra full server response whose payload is empty or
 *   `body` (default `'<html>oops</html>'`); with `final: true` it is sent with the final flags
 *   INSTEAD of the real final response (use with `onLastPacket`);
 * - `response`: an extra response with this payload (and flags/sequence) — any shape you need;
 * - `raw`: these bytes as a binary message (malformed frames);
 * - `silence`: from then on nothing is answered, not even the final response;
 * - `stop-reading`: the server stops reading the socket (for `resumeAfterMs`, default for good),
 *   so the client's writes back up: for backpressure tests;
 * - `close`: the TCP connection is dropped without a close frame (the client sees 1006).
 */
export type AsrFault =
  | (FaultCommon & { type: 'error'; code: number; message?: string })
  | (FaultCommon & { type: 'empty-payload'; final?: boolean })
  | (FaultCommon & { type: 'non-json-payload'; body?: string; final?: boolean })
  | (FaultCommon & { type: 'response'; payload: JsonObject; flags?: FrameFlags; sequence?: number })
  | (FaultCommon & { type: 'raw'; bytes: Uint8Array })
  | (FaultCommon & { type: 'silence' })
  | (FaultCommon & { type: 'stop-reading'; resumeAfterMs?: number })
  | (FaultCommon & { type: 'close' });

/** Where a connection is when faults are looked up: after the request, or on an audio packet. */
export type FaultMoment =
  | { kind: 'request' }
  | {
      kind: 'audio';
      /** Audio packets received, this one included. */
      packets: number;
      /** ms of audio received before this packet, and with it. */
      audioMsBefore: number;
      audioMs: number;
      /** Whether this is the last packet. */
      last: boolean;
    };

/** What a fault can do to a connection. */
export interface FaultTarget {
  /** An error frame, then the connection closes. */
  sendError(code: number, message: string): void;
  /** Drops the TCP connection without a close frame. */
  terminate(): void;
  /** Answers nothing from now on. */
  silence(): void;
  /** Stops reading the socket, for `resumeAfterMs` or for good. */
  stopReading(resumeAfterMs: number | undefined): void;
  /** Sends bytes as one binary message. */
  sendRaw(bytes: Uint8Array): void;
  /**
   * A response with these flags. When they carry a sequence, it is `sequence`, or else the next
   * one of the connection (without using it up); otherwise `sequence` is not sent.
   */
  sendResponse(payload: JsonObject, flags: FrameFlags, sequence: number | undefined): void;
  /** A partial (or final) response whose payload is these bytes where JSON is declared. */
  sendPayloadBytes(payload: Uint8Array, final: boolean): void;
}

/** The faults still pending on one connection; each fires once. */
interface FaultQueue {
  /**
   * Fires the faults due at `moment`, in the order given. `alive` is false when one of them ended
   * the connection (the rest wait for nothing); `finalSent` when one replaced the final response.
   */
  fire(moment: FaultMoment, target: FaultTarget): { alive: boolean; finalSent: boolean };
}

function isDue(point: AsrFaultPoint, moment: FaultMoment): boolean {
  if (moment.kind === 'request') return 'afterRequest' in point;
  if ('afterPackets' in point) return point.afterPackets === moment.packets;
  if ('afterAudioMs' in point) {
    return moment.audioMsBefore < point.afterAudioMs && moment.audioMs >= point.afterAudioMs;
  }
  return 'onLastPacket' in point && moment.last;
}

const DEFAULT_NON_JSON_BODY = '<html>oops</html>';

/** The faults of connection `index`, ready to fire; see {@link AsrFault}. */
export function createFaultQueue(faults: readonly AsrFault[], index: number): FaultQueue {
  const pending = faults.filter(
    (fault) => fault.connection === undefined || fault.connection === index,
  );
  return {
    fire(moment, target) {
      let finalSent = false;
      for (const fault of [...pending]) {
        if (!isDue(fault.at, moment)) continue;
        pending.splice(pending.indexOf(fault), 1);
        switch (fault.type) {
          case 'error':
            target.sendError(fault.code, fault.message ?? `injected error ${fault.code}`);
            return { alive: false, finalSent };
          case 'close':
            target.terminate();
            return { alive: false, finalSent };
          case 'silence':
            target.silence();
            break;
          case 'stop-reading':
            target.stopReading(fault.resumeAfterMs);
            break;
          case 'raw':
            target.sendRaw(fault.bytes);
            break;
          case 'response':
            target.sendResponse(fault.payload, fault.flags ?? 0, fault.sequence);
            break;
          case 'empty-payload':
          case 'non-json-payload': {
            const body =
              fault.type === 'empty-payload'
                ? new Uint8Array(0)
                : new TextEncoder().encode(fault.body ?? DEFAULT_NON_JSON_BODY);
            const final = fault.final === true && moment.kind === 'audio' && moment.last;
            target.sendPayloadBytes(body, final);
            finalSent ||= final;
            break;
          }
        }
      }
      return { alive: true, finalSent };
    },
  };
}
