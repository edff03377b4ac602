import { afterEach, describe, expect, it } from 'vitest';
import { setLang } from './i18n.ts';
import {
  importBarText,
  importDoneText,
  importLeftText,
  importPercent,
  importProgressText,
} from './import-progress.ts';

const MINUTE = 60_000;

afterEach(() => setLang('zh'));

describe('import progress', () => {
  it('says the minutes done of the recording and the time left, in Chinese and English', () => {
    const status = {
      fraction: 0.43,
      position_ms: 12 * MINUTE + 40_000,
      duration_ms: 58 * MINUTE,
      eta_ms: 3 * MINUTE + 10_000,
    };
    expect(importProgressText(status)).toBe('已完成 12 / 58 分钟，约剩 3 分钟');
    expect(importBarText(status)).toBe('导入中 43% · 约剩 3 分钟');
    setLang('en');
    expect(importProgressText(status)).toBe('12 of 58 min done, about 3 min left');
    expect(importBarText(status)).toBe('Importing 43% · about 3 min left');
  });

  it('counts seconds for a recording shorter than a minute', () => {
    expect(importDoneText({ position_ms: 12_400, duration_ms: 40_000 })).toBe('已完成 12 / 40 秒');
    setLang('en');
    expect(importDoneText({ position_ms: 12_400, duration_ms: 40_000 })).toBe('12 of 40 s done');
  });

  it('never says more done than the length, and only minutes while the length is unknown', () => {
    expect(importDoneText({ position_ms: 59 * MINUTE, duration_ms: 58 * MINUTE + 10_000 })).toBe(
      '已完成 58 / 58 分钟',
    );
    expect(importDoneText({ position_ms: 7 * MINUTE + 59_000, duration_ms: null })).toBe(
      '已完成 7 分钟',
    );
  });

  it('says less than a minute near the end, and estimating before it knows', () => {
    expect(importLeftText({ eta_ms: 59_000 })).toBe('不到 1 分钟');
    expect(importLeftText({ eta_ms: null })).toBe('正在估算剩余时间');
    expect(importLeftText({ eta_ms: 89_000 })).toBe('约剩 1 分钟');
    expect(importLeftText({ eta_ms: 91_000 })).toBe('约剩 2 分钟');
    setLang('en');
    expect(importLeftText({ eta_ms: 59_000 })).toBe('less than a minute left');
    expect(importLeftText({ eta_ms: null })).toBe('estimating the time left');
  });

  it('never shows 100 % before the end', () => {
    expect(importPercent({ fraction: 0.999 })).toBe(99);
    expect(importPercent({ fraction: 1 })).toBe(100);
    expect(importPercent({ fraction: 0 })).toBe(0);
  });
});
