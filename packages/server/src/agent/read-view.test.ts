import { describe, expect, it } from 'vitest';
import { classContentPath } from './read-view.ts';

describe('classContentPath: class content only', () => {
  it('names the live files, material texts, notes and class folder files', () => {
    expect(classContentPath('class_transcript.txt')).toEqual(['class_transcript.txt']);
    expect(classContentPath('./current_class_material.txt')).toEqual([
      'current_class_material.txt',
    ]);
    expect(classContentPath('cite/堆_20261123_101500.txt')).toEqual([
      'cite',
      '堆_20261123_101500.txt',
    ]);
    expect(classContentPath('summaries\\数据结构_20261123_101500.md')).toEqual([
      'summaries',
      '数据结构_20261123_101500.md',
    ]);
    for (const name of ['transcript.txt', 'class.json', 'notes.md', 'material.txt']) {
      expect(classContentPath(`classes/20261123-101500-k3f9/${name}`)).toEqual([
        'classes',
        '20261123-101500-k3f9',
        name,
      ]);
    }
  });

  it('refuses tokens, logs, the index, settings, models and anything else', () => {
    for (const path of [
      'mcp-token',
      '_shutdown.token',
      '_startup.log',
      '_startup.log.1',
      'library.db',
      'library.db-wal',
      '.env',
      '../.env',
      'keywords.txt',
      'models/vosk/README',
      'cite/notes.md',
      'cite/../mcp-token',
      'summaries/x.txt',
      'classes/20261123-101500-k3f9/other.txt',
      'classes/not-an-id/notes.md',
      'classes/20261123-101500-k3f9/../../mcp-token',
      '/etc/passwd',
      '',
    ]) {
      expect(classContentPath(path), path).toBeNull();
    }
  });
});
