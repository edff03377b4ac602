import { describe, expect, it } from 'vitest';
import { microphoneFailure, systemSoundFailure } from './microphone-problem.ts';

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

describe('systemSoundFailure', () => {
  it('tells a refused share, a share without sound and a browser that cannot share apart', () => {
    expect(
      systemSoundFailure(new DOMException('Permission denied', 'NotAllowedError')),
    ).toMatchObject({ problem: 'permission-denied', share: 'refused' });
    expect(systemSoundFailure(new DOMException('no audio track', 'NoSharedAudio'))).toMatchObject({
      problem: 'no-device',
      share: 'no-audio',
      message: expect.stringContaining('share audio'),
    });
    expect(
      systemSoundFailure(new DOMException('no getDisplayMedia', 'NotSupportedError')),
    ).toMatchObject({ problem: 'failed', share: 'unsupported' });
    // Anything else is the device's own failure, as for a microphone.
    expect(systemSoundFailure(new DOMException('busy', 'NotReadableError')).share).toBeUndefined();
  });
});
