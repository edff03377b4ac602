import { describe, expect, it } from 'vitest';
import type { CaptureStatus } from '../types.ts';
import { captureMessage } from './capture-message.ts';
import { IDLE_CAPTURE, type WindowCaptureState } from './window-capture.ts';

const idle = IDLE_CAPTURE;
const capturing: WindowCaptureState = {
  ...idle,
  microphone: 'on',
  link: 'open',
  device: 'USB Mic',
  forClass: true,
};
const status = (patch: Partial<CaptureStatus>): CaptureStatus => ({
  state: 'receiving',
  connected: true,
  device: 'USB Mic',
  problem: null,
  message: '',
  ...patch,
});

describe('captureMessage', () => {
  it('says the class will listen here, then that it does', () => {
    expect(captureMessage(idle, null)).toEqual({ key: 'captureIdle', tone: 'idle' });
    expect(captureMessage({ ...idle, forClass: true }, status({ state: 'waiting' }))).toEqual({
      key: 'captureStarting',
      tone: 'busy',
    });
    expect(captureMessage(capturing, status({ state: 'waiting' }))).toMatchObject({
      key: 'captureWaiting',
    });
    expect(captureMessage(capturing, status({}))).toEqual({
      key: 'captureReceiving',
      values: { device: 'USB Mic' },
      tone: 'ok',
    });
    expect(captureMessage({ ...capturing, forClass: false, testing: true }, null)).toMatchObject({
      key: 'captureTesting',
    });
  });

  it('puts the window’s own reason first, with a way out', () => {
    const stopped = status({ state: 'stopped', problem: 'permission-denied' });
    expect(captureMessage({ ...capturing, microphone: 'permission-denied' }, stopped)).toEqual({
      key: 'capturePermissionDenied',
      tone: 'bad',
      action: 'retry',
    });
    expect(captureMessage({ ...capturing, microphone: 'device-lost' }, null)).toMatchObject({
      key: 'captureDeviceLost',
      action: 'retry',
    });
    expect(
      captureMessage({ ...capturing, microphone: 'failed', detail: 'busy device' }, null),
    ).toMatchObject({ key: 'captureFailed', values: { message: 'busy device' } });
    expect(captureMessage({ ...capturing, link: 'replaced' }, status({}))).toMatchObject({
      key: 'captureReplaced',
      action: 'take-over',
    });
  });

  it('shows what the backend noticed when the window itself sees nothing wrong', () => {
    expect(
      captureMessage(capturing, status({ state: 'stopped', problem: 'no-audio' })),
    ).toMatchObject({ key: 'captureNoAudio', tone: 'bad' });
    expect(
      captureMessage(capturing, status({ state: 'stopped', problem: 'disconnected' })),
    ).toMatchObject({ key: 'captureDisconnected' });
    expect(
      captureMessage(
        capturing,
        status({ state: 'stopped', problem: 'no-device', message: 'The app window cannot…' }),
      ),
    ).toMatchObject({ key: 'captureOtherWindow', values: { message: 'The app window cannot…' } });
    expect(captureMessage({ ...capturing, link: 'retrying' }, null)).toMatchObject({
      key: 'captureReconnecting',
    });
  });

  it('explains a share of the computer sound that failed, with Retry where it can help', () => {
    const refused = {
      ...capturing,
      microphone: 'permission-denied' as const,
      share: 'refused' as const,
    };
    expect(captureMessage(refused, status({ state: 'waiting' }))).toEqual({
      key: 'captureShareRefused',
      tone: 'bad',
      action: 'retry',
    });
    expect(
      captureMessage({ ...refused, microphone: 'no-device', share: 'no-audio' }, null),
    ).toMatchObject({ key: 'captureShareNoAudio', action: 'retry' });
    expect(
      captureMessage({ ...refused, microphone: 'failed', share: 'unsupported' }, null),
    ).toEqual({ key: 'captureShareUnsupported', tone: 'bad' });
  });
});
