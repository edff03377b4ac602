// The one sentence the views show about the window's microphone, from what this window knows
// (its microphone and socket) and what the backend reports (`capture.changed`). What the window
// knows first: it has the more precise reason (a refused permission, an unplugged device); the
// backend's view next: it notices audio that stopped arriving, whatever the cause. No DOM here.
import type { TextKey } from '../i18n.ts';
import type { CaptureStatus } from '../types.ts';
import type { WindowCaptureState } from './window-capture.ts';

/** What to show: a text, how it looks, and the way out. */
export interface CaptureMessage {
  key: TextKey;
  values?: Record<string, string>;
  /** `bad`: the class is not hearing the student's room; `busy`: on its way; `ok`; `idle`. */
  tone: 'ok' | 'busy' | 'bad' | 'idle';
  action?: 'retry' | 'take-over';
}

const SHARE_KEYS = {
  refused: 'captureShareRefused',
  'no-audio': 'captureShareNoAudio',
  unsupported: 'captureShareUnsupported',
} as const;

/**
 * The message for the current state.
 *
 * @example
 * captureMessage({ ...state, microphone: 'permission-denied' }, status).key; // 'capturePermissionDenied'
 */
export function captureMessage(
  local: WindowCaptureState,
  server: CaptureStatus | null,
): CaptureMessage {
  if (local.share && local.microphone !== 'on' && local.microphone !== 'starting') {
    const key = SHARE_KEYS[local.share];
    return { key, tone: 'bad', ...(local.share === 'unsupported' ? {} : { action: 'retry' }) };
  }
  switch (local.microphone) {
    case 'permission-denied':
      return { key: 'capturePermissionDenied', tone: 'bad', action: 'retry' };
    case 'no-device':
      return { key: 'captureNoDevice', tone: 'bad', action: 'retry' };
    case 'device-lost':
      return { key: 'captureDeviceLost', tone: 'bad', action: 'retry' };
    case 'failed':
      return {
        key: 'captureFailed',
        values: { message: local.detail },
        tone: 'bad',
        action: 'retry',
      };
    case 'suspended':
      return { key: 'captureSuspended', tone: 'bad' };
    default:
      break;
  }
  if (local.forClass && local.link === 'replaced') {
    return { key: 'captureReplaced', tone: 'idle', action: 'take-over' };
  }
  if (local.forClass && local.link === 'retrying')
    return { key: 'captureReconnecting', tone: 'bad' };
  if (local.forClass && server?.state === 'stopped') {
    if (server.problem === 'no-audio') return { key: 'captureNoAudio', tone: 'bad' };
    if (server.problem === 'disconnected') return { key: 'captureDisconnected', tone: 'bad' };
    return { key: 'captureOtherWindow', values: { message: server.message }, tone: 'bad' };
  }
  if (local.microphone === 'starting') return { key: 'captureStarting', tone: 'busy' };
  if (local.microphone === 'on') {
    const device = local.device || '—';
    if (!local.forClass) return { key: 'captureTesting', values: { device }, tone: 'ok' };
    return server?.state === 'receiving'
      ? { key: 'captureReceiving', values: { device }, tone: 'ok' }
      : { key: 'captureWaiting', tone: 'busy' };
  }
  if (local.forClass) return { key: 'captureStarting', tone: 'busy' };
  return { key: 'captureIdle', tone: 'idle' };
}
