/**
 * The service's numeric codes, as carried by error frames.
 *
 * `retryable` answers "can the same request succeed on a new connection?":
 * - 55000031 (busy) and every other 550xxxxx (internal error): yes, the fault is on the service side.
 * - 45000081 (timeout waiting for packets): yes. The request was fine; audio stopped arriving in
 *   time (a stalled microphone, a paused process). A live caller reconnects and resumes.
 * - 45000001, 45000002, 45000151: no. The request, the audio or its format is wrong and will be
 *   refused again.
 * - Any other code: no (unknown faults are not retried blindly).
 */
export const ASR_SERVICE_CODES = {
  SUCCESS: 20000000,
  INVALID_REQUEST: 45000001,
  EMPTY_AUDIO: 45000002,
  PACKET_TIMEOUT: 45000081,
  AUDIO_FORMAT: 45000151,
  SERVER_BUSY: 55000031,
} as const;

// A Map, not an object literal: a lookup never finds `constructor` or `toString`.
const MEANINGS = new Map<number, string>([
  [20000000, 'success'],
  [45000001, 'invalid request parameters'],
  [45000002, 'empty audio'],
  [45000081, 'timeout waiting for packets'],
  [45000151, 'audio format incorrect'],
  [55000031, 'server busy'],
]);

/** True for the 550xxxxx family (internal service errors, including 55000031 busy). */
function isInternalErrorCode(code: number): boolean {
  return Math.floor(code / 100_000) === 550;
}

/**
 * The meaning of a service code, e.g. `'server busy'` for 55000031 and
 * `'internal service error'` for any other 550xxxxx; `'unknown service code'` otherwise.
 */
export function describeServiceCode(code: number): string {
  return (
    MEANINGS.get(code) ??
    (isInternalErrorCode(code) ? 'internal service error' : 'unknown service code')
  );
}

/** Whether a new connection with the same request can succeed after this service code (see {@link ASR_SERVICE_CODES}). */
export function isRetryableServiceCode(code: number): boolean {
  return isInternalErrorCode(code) || code === ASR_SERVICE_CODES.PACKET_TIMEOUT;
}
