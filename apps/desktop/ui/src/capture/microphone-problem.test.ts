import { describe, expect, it } from 'vitest';
import { microphoneFailure } from './microphone-problem.ts';

describe('microphoneFailure', () => {
  it('tells a refused permission, a missing device and a busy one apart', () => {
    expect(microphoneFailure(new DOMException('Permission denied', 'NotAllowedError'))).toEqual({
      problem: 'permission-denied',
      message: 'the microphone permission was denied in the app window (Permission denied)',
    });
    expect(microphoneFailure(new DOMException('', 'NotFoundError')).problem).toBe('no-device');
    expect(microphoneFailure(new DOMException('', 'OverconstrainedError')).problem).toBe(
      'no-device',
    );
    expect(microphoneFailure(new DOMException('Device in use', 'NotReadableError'))).toEqual({
      problem: 'failed',
      message: 'the microphone is busy or could not be started (Device in use)',
    });
    expect(microphoneFailure(new Error('no AudioWorklet'))).toEqual({
      problem: 'failed',
      message: 'the microphone could not be started (no AudioWorklet)',
    });
  });
});
