import { describe, expect, it } from 'vitest';
import {
  courseFromFile,
  isRecording,
  RECORDING_EXTENSIONS,
  recordingFormats,
} from './recording-file.ts';

describe('isRecording', () => {
  it('takes every format the backend decodes, whatever the case of the extension', () => {
    for (const extension of RECORDING_EXTENSIONS) {
      expect(isRecording({ name: `lecture${extension}`, type: '' }), extension).toBe(true);
      expect(isRecording({ name: `LECTURE${extension.toUpperCase()}`, type: '' })).toBe(true);
    }
    expect(isRecording({ name: '第3讲 录屏.MP4', type: 'video/mp4' })).toBe(true);
  });

  it('takes a recording by its MIME type when the name does not say', () => {
    expect(isRecording({ name: 'recording', type: 'audio/mpeg' })).toBe(true);
    expect(isRecording({ name: 'clip.bin', type: 'video/webm;codecs=opus' })).toBe(true);
    expect(isRecording({ name: 'voice', type: 'audio/x-wav' })).toBe(true);
  });

  it('refuses documents, pictures and other files', () => {
    expect(isRecording({ name: 'slides.pdf', type: 'application/pdf' })).toBe(false);
    expect(isRecording({ name: 'deck.pptx', type: '' })).toBe(false);
    expect(isRecording({ name: 'photo.jpg', type: 'image/jpeg' })).toBe(false);
    expect(isRecording({ name: 'song.mid', type: 'audio/midi' })).toBe(false);
    expect(isRecording({ name: '.wav', type: '' })).toBe(false);
    expect(isRecording({ name: 'wav', type: '' })).toBe(false);
  });
});

describe('courseFromFile', () => {
  it('is the file name without its extension', () => {
    expect(courseFromFile('数据结构 第3讲.mp4')).toBe('数据结构 第3讲');
    expect(courseFromFile('lecture.2026-03-01.m4a')).toBe('lecture.2026-03-01');
    expect(courseFromFile('recording')).toBe('recording');
  });
});

describe('recordingFormats', () => {
  it('lists the formats for a message', () => {
    expect(recordingFormats()).toBe('MP3, M4A, AAC, MP4, MOV, WEBM, OGG, OGA, OPUS, FLAC, WAV');
  });
});
