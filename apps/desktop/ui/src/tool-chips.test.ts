import { afterEach, describe, expect, it } from 'vitest';
import { setLang } from './i18n.ts';
import { toolCallText } from './tool-chips.ts';

const call = (name: string, args: Record<string, unknown>) => ({ id: '1', name, arguments: args });

describe('toolCallText', () => {
  afterEach(() => setLang('zh'));

  it('says each lookup in plain Chinese', () => {
    setLang('zh');
    expect(toolCallText(call('material_page', { page: 12 }))).toBe('查阅第 12 页');
    expect(toolCallText(call('class_search', { query: '堆' }))).toBe('搜索：堆');
    expect(toolCallText(call('class_lines', { from: '10:30:00', to: '10:35:10' }))).toBe(
      '查看 10:30–10:35 的字幕',
    );
    expect(toolCallText(call('class_lines', { around_line_id: 4 }))).toBe('查看字幕');
    expect(toolCallText(call('notes_read', {}))).toBe('查阅笔记');
    expect(toolCallText(call('class_file_read', { path: 'cite/堆.txt' }))).toBe(
      '读取文件：cite/堆.txt',
    );
    expect(toolCallText(call('regex_match', {}))).toBe('使用工具：regex_match');
  });

  it('and in English, with long queries shortened', () => {
    setLang('en');
    expect(toolCallText(call('material_page', { page: 3, material: 'deck.pptx' }))).toBe(
      'Reading page 3 of deck.pptx',
    );
    expect(toolCallText(call('class_search', { query: 'a'.repeat(40) }))).toBe(
      `Searching: ${'a'.repeat(23)}…`,
    );
    expect(toolCallText(call('class_list', {}))).toBe('Listing classes');
  });
});
