import { describe, expect, it } from 'vitest';
import {
  finishTaskInstruction,
  isFatalTaskFailure,
  readDashscopeEvent,
  runTaskInstruction,
} from './dashscope-protocol.ts';

describe('DashScope instructions', () => {
  it('builds run-task and finish-task as the duplex API documents them', () => {
    expect(
      JSON.parse(
        runTaskInstruction('a'.repeat(32), 'fun-asr-realtime', {
          format: 'pcm',
          sample_rate: 16000,
        }),
      ),
    ).toEqual({
      header: { action: 'run-task', task_id: 'a'.repeat(32), streaming: 'duplex' },
      payload: {
        task_group: 'audio',
        task: 'asr',
        function: 'recognition',
        model: 'fun-asr-realtime',
        parameters: { format: 'pcm', sample_rate: 16000 },
        input: {},
      },
    });
    expect(JSON.parse(finishTaskInstruction('t1'))).toEqual({
      header: { action: 'finish-task', task_id: 't1', streaming: 'duplex' },
      payload: { input: {} },
    });
  });
});

describe('readDashscopeEvent', () => {
  const frame = (header: object, payload: object = {}) => JSON.stringify({ header, payload });

  it('reads the four events, interim and final sentences, and heartbeats', () => {
    expect(readDashscopeEvent(frame({ event: 'task-started', task_id: 't1' }))).toEqual({
      event: 'task-started',
      taskId: 't1',
    });
    const result = (sentence: object) =>
      readDashscopeEvent(
        frame({ event: 'result-generated', task_id: 't1' }, { output: { sentence } }),
      );
    expect(result({ begin_time: 170, end_time: null, text: '好的', sentence_end: false })).toEqual({
      event: 'result-generated',
      taskId: 't1',
      sentence: { beginTime: 170, endTime: undefined, text: '好的', sentenceEnd: false },
    });
    expect(
      result({ begin_time: 170, end_time: 920, text: '好的，我知道了。', sentence_end: true }),
    ).toMatchObject({
      sentence: { endTime: 920, sentenceEnd: true },
    });
    expect(
      result({ begin_time: 0, end_time: 0, text: '', heartbeat: true, sentence_id: 0 }),
    ).toEqual({
      event: 'heartbeat',
      taskId: 't1',
    });
    expect(
      readDashscopeEvent(
        frame({
          event: 'task-failed',
          task_id: 't1',
          error_code: 'CLIENT_ERROR',
          error_message: 'request timeout after 23 seconds.',
        }),
      ),
    ).toEqual({
      event: 'task-failed',
      taskId: 't1',
      code: 'CLIENT_ERROR',
      message: 'request timeout after 23 seconds.',
    });
    expect(readDashscopeEvent(frame({ event: 'task-finished', task_id: 't1' }))).toEqual({
      event: 'task-finished',
      taskId: 't1',
    });
  });

  it('reads anything else as unknown instead of throwing', () => {
    for (const text of [
      '',
      'not json',
      '[]',
      '{"header":{}}',
      frame({ event: 'result-generated' }),
      frame({ event: 'other' }),
    ]) {
      expect(readDashscopeEvent(text)).toEqual({ event: 'unknown', text });
    }
  });

  it('tells a refused key or a bad request (fatal) from a passing fault (reconnect)', () => {
    for (const code of [
      'InvalidApiKey',
      'Arrearage',
      'AccessDenied',
      'InvalidParameter',
      'ModelNotFound',
    ]) {
      expect(isFatalTaskFailure(code), code).toBe(true);
    }
    for (const code of ['InternalError', 'Throttling', 'CLIENT_ERROR', 'UNKNOWN']) {
      expect(isFatalTaskFailure(code), code).toBe(false);
    }
  });
});
