// What a failed getUserMedia (or a microphone that went away) means for the student, and what the
// window tells the backend about it. No DOM access: tested in Node.
import type { CaptureProblem } from '../types.ts';

/** A microphone problem the window reports on the capture socket. */
export type WindowProblem = Exclude<CaptureProblem, 'disconnected' | 'no-audio'>;

/** The problem and the sentence for the backend (its logs and other clients). */
export interface MicrophoneFailure {
  problem: WindowProblem;
  message: string;
  /** A failed share of the computer's sound: refused or cancelled, without sound, impossible here. */
  share?: ShareProblem;
}

/** Why the computer's sound (a screen or tab shared with its audio) is not captured. */
export type ShareProblem = 'refused' | 'no-audio' | 'unsupported';

/**
 * Classifies a getUserMedia or Web Audio failure by its DOMException name: refused permission
 * (NotAllowedError, SecurityError), no device (NotFoundError, OverconstrainedError), anything
 * else (NotReadableError: the device is busy or broken; no Web Audio) a failure with the
 * browser's words.
 *
 * @example
 * microphoneFailure(new DOMException('Permission denied', 'NotAllowedError')).problem; // 'permission-denied'
 */
export function microphoneFailure(error: unknown): MicrophoneFailure {
  const name = (error as { name?: unknown })?.name;
  const text = (error as { message?: unknown })?.message;
  const detail = typeof text === 'string' && text !== '' ? text : String(error);
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return {
        problem: 'permission-denied',
        message: `the microphone permission was denied in the app window (${detail})`,
      };
    case 'NotFoundError':
    case 'OverconstrainedError':
      return { problem: 'no-device', message: 'the app window found no microphone' };
    case 'NotReadableError':
      return {
        problem: 'failed',
        message: `the microphone is busy or could not be started (${detail})`,
      };
    default:
      return { problem: 'failed', message: `the microphone could not be started (${detail})` };
  }
}

/** The microphone disappeared while capturing (unplugged, disabled, taken by the system). */
export const DEVICE_LOST: MicrophoneFailure = {
  problem: 'device-lost',
  message: 'the microphone was disconnected or taken away while capturing',
};

/**
 * Classifies a failed share of the computer's sound (getDisplayMedia): refused or cancelled
 * (NotAllowedError, or InvalidStateError: no click to allow it), a share without sound (the
 * student left "share audio" unticked, or shared a window: `NoSharedAudio`), or a browser that
 * cannot share sound at all.
 *
 * @example
 * systemSoundFailure(new DOMException('no audio', 'NoSharedAudio')).share; // 'no-audio'
 */
export function systemSoundFailure(error: unknown): MicrophoneFailure {
  const name = (error as { name?: unknown })?.name;
  const text = (error as { message?: unknown })?.message;
  const detail = typeof text === 'string' && text !== '' ? text : String(error);
  switch (name) {
    case 'NotAllowedError':
    case 'InvalidStateError':
    case 'AbortError':
      return {
        problem: 'permission-denied',
        message: `sharing the computer sound was refused or cancelled in the app window (${detail})`,
        share: 'refused',
      };
    case 'NoSharedAudio':
      return {
        problem: 'no-device',
        message:
          'the screen or tab shared in the app window carries no sound ("share audio" was not ticked)',
        share: 'no-audio',
      };
    case 'NotSupportedError':
    case 'TypeError':
      return {
        problem: 'failed',
        message: `this browser cannot share the computer sound (${detail})`,
        share: 'unsupported',
      };
    default:
      return microphoneFailure(error);
  }
}
