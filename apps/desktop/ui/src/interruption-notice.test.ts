import { describe, expect, it } from 'vitest';
import { setLang, t } from './i18n.ts';
import { interruptionNotice } from './interruption-notice.ts';
import { IDLE_MONITOR } from './store.ts';

const at = '2026-11-27T06:00:12.000Z';
const running = { ...IDLE_MONITOR, state: 'running' as const, is_monitoring: true };

describe('interruptionNotice', () => {
  it('says the class went on and the gap, in both languages, once per interruption', () => {
    const monitor = {
      ...running,
      interruption: { at, seconds: 12, resumed: true, reason: null },
    };
    const notice = interruptionNotice(monitor, 'zh', null);
    expect(notice).toMatchObject({ at, kind: 'info' });
    expect(t(notice!.key, notice!.values)).toBe('后端意外退出，已自动接着记录，中断 12 秒');
    setLang('en');
    expect(t(notice!.key, notice!.values)).toBe(
      'The backend stopped unexpectedly; recording went on after a 12 s gap',
    );
    setLang('zh');
    expect(interruptionNotice(monitor, 'zh', at)).toBeNull();
    expect(interruptionNotice(running, 'zh', null)).toBeNull();
  });

  it('says why the class could not go on, in the UI’s language', () => {
    const monitor = {
      ...IDLE_MONITOR,
      interruption: {
        at,
        seconds: 40,
        resumed: false,
        reason: { code: 'RECOGNIZER_UNAVAILABLE', zh: '找不到麦克风。', en: 'No microphone.' },
      },
    };
    const notice = interruptionNotice(monitor, 'en', null);
    expect(notice).toMatchObject({ kind: 'error', values: { reason: 'No microphone.' } });
    expect(t(notice!.key, notice!.values)).toBe(
      '后端意外退出，没能自动接着记录：No microphone. 之前的字幕都已保存。',
    );
  });
});
