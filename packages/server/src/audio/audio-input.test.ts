import { describe, expect, it } from 'vitest';
import { describeAudioInput, parseAudioInput } from './audio-input.ts';

describe('parseAudioInput', () => {
  it('reads the default microphone, a named one, and files', () => {
    for (const value of ['', 'mic', 'MIC', 'default', ' microphone ']) {
      expect(parseAudioInput(value, '/app/data')).toEqual({
        kind: 'microphone',
        device: undefined,
      });
    }
    expect(parseAudioInput('mic:USB Audio', '/app/data')).toEqual({
      kind: 'microphone',
      device: 'USB Audio',
    });
    expect(parseAudioInput('Blue Yeti', '/app/data')).toEqual({
      kind: 'microphone',
      device: 'Blue Yeti',
    });
    expect(parseAudioInput('file:/srv/lecture.wav', '/app/data')).toEqual({
      kind: 'file',
      path: '/srv/lecture.wav',
    });
    // Relative paths start at the folder holding the data folder (where .env lives).
    expect(parseAudioInput('file:recordings/week3.wav', '/app/data')).toEqual({
      kind: 'file',
      path: '/app/recordings/week3.wav',
    });
    expect(parseAudioInput('week3.WAV', '/app/data')).toEqual({
      kind: 'file',
      path: '/app/week3.WAV',
    });
    // Every recording a student may have is a file by its name alone.
    for (const name of [
      'a.mp3',
      'a.M4A',
      'a.aac',
      'a.mp4',
      'a.mov',
      'a.webm',
      'a.ogg',
      'a.oga',
      'a.opus',
      'a.flac',
    ]) {
      expect(parseAudioInput(`/rec/${name}`, '/app/data')).toEqual({
        kind: 'file',
        path: `/rec/${name}`,
      });
    }
    expect(parseAudioInput('USB mp3 player', '/app/data')).toEqual({
      kind: 'microphone',
      device: 'USB mp3 player',
    });
  });

  it('reads app as the app window’s microphone; a device called "app" is mic:app', () => {
    for (const value of ['app', ' APP ']) {
      expect(parseAudioInput(value, '/app/data')).toEqual({ kind: 'app' });
    }
    expect(parseAudioInput('mic:app', '/app/data')).toEqual({ kind: 'microphone', device: 'app' });
  });

  it('reads system as the computer’s sound, system+mic as that mixed with the microphone', () => {
    for (const value of ['system', ' SYSTEM ']) {
      expect(parseAudioInput(value, '/app/data')).toEqual({
        kind: 'system',
        withMicrophone: false,
      });
    }
    for (const value of ['system+mic', 'System + Mic', 'mic+system']) {
      expect(parseAudioInput(value, '/app/data')).toEqual({ kind: 'system', withMicrophone: true });
    }
    expect(parseAudioInput('mic:system', '/app/data')).toEqual({
      kind: 'microphone',
      device: 'system',
    });
    expect(describeAudioInput({ kind: 'system', withMicrophone: true })).toBe(
      "the computer's sound mixed with the default microphone",
    );
  });

  it('refuses file: without a path, naming AUDIO_INPUT', () => {
    expect(() => parseAudioInput('file:  ', '/app/data')).toThrow(
      expect.objectContaining({ code: 'AUDIO_INPUT_INVALID', details: { field: 'AUDIO_INPUT' } }),
    );
  });

  it('names inputs for messages', () => {
    expect(describeAudioInput({ kind: 'microphone', device: undefined })).toBe(
      'the default microphone',
    );
    expect(describeAudioInput({ kind: 'file', path: '/a.wav' })).toBe('the recording /a.wav');
    expect(describeAudioInput({ kind: 'app' })).toBe('the microphone of the app window');
  });
});
