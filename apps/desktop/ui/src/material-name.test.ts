import { describe, expect, it } from 'vitest';
import { materialStem } from './material-name.ts';

describe('materialStem', () => {
  it('drops the upload time and .txt the backend adds', () => {
    expect(materialStem('deck_20260301_080000.txt')).toBe('deck');
    expect(materialStem('第3章_链表_20260301_080000_2.txt')).toBe('第3章_链表');
    expect(materialStem('my notes.txt')).toBe('my notes');
    expect(materialStem('.txt')).toBe('.txt');
  });
});
