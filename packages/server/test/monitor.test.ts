import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ServerError } from '../src/errors.ts';
import type { LiveEvent } from '../src/events/event-hub.ts';
import { defaultRecognizerDefinitions } from '../src/recognizers/default-recognizers.ts';
import {
  createRecognizerRegistry,
  type RecognizerDefinition,
  type RecognizerEvent,
} from '../src/recognizers/recognizer.ts';
import { createHarness, FAST_MOCK, type Harness, waitFor } from './support/harness.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function record(target: Harness): LiveEvent[] {
  const events: LiveEvent[] = [];
  target.app.classAssistant.hub.subscribe((event) => events.push(event));
  return events;
}

const transcriptLines = async (target: Harness) =>
  (await readFile(join(target.dataDir, 'class_transcript.txt'), 'utf8'))
    .split('\n')
    .filter((line) => /^\[\d\d:\d\d:\d\d\] /.test(line));

/** A recognizer that emits exactly the events a test gives it, when the test says so. */
function scriptedMode(mode: string): {
  definition: RecognizerDefinition;
  emit(event: RecognizerEvent): void;
  calls: string[];
} {
  let emit: (event: RecognizerEvent) => void = () => undefined;
  const calls: string[] = [];
  return {
    calls,
    emit: (event) => emit(event),
    definition: {
      mode,
      description: 'test recognizer',
      availability: async () => ({ available: true }),
      create(context) {
        emit = context.emit;
        return {
          start: async () => void calls.push('start'),
          pause: async () => void calls.push('pause'),
          resume: async () => void calls.push('resume'),
          stop: async () => void calls.push('stop'),
        };
      },
    },
  };
}

describe('start_monitor / stop_monitor with the mock recognizer', () => {
  it('runs a class: lines land in the transcript file, alerts are raised, stop flushes', async () => {
    harness = await createHarness({ env: FAST_MOCK });
    const events = record(harness);
    const started = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { course_name: '数据结构', cite_filename: '' },
    });
    expect(started.statusCode).toBe(200);
    expect(started.json()).toMatchObject({ status: 'started', effective_asr_mode: 'mock' });
    const status = (await harness.request({ url: '/api/monitor_status' })).json();
    expect(status).toMatchObject({
      status: 'success',
      state: 'running',
      is_monitoring: true,
      is_paused: false,
      course_name: '数据结构',
      asr_mode: 'mock',
      recognizer_state: 'running',
    });
    await waitFor(
      () => harness?.app.classAssistant.monitor.status().recognizer_state === 'ended',
      20_000,
      'end',
    );
    const stopped = await harness.request({
      method: 'POST',
      url: '/api/stop_monitor?with_summary=false',
    });
    expect(stopped.json()).toEqual({
      status: 'stopped',
      message: expect.any(String),
      course_name: '数据结构',
    });
    const lines = await transcriptLines(harness);
    const appended = events.filter((event) => event.name === 'line.appended');
    expect(lines).toHaveLength(appended.length);
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.some((line) => line.includes('请学号尾号是 7 的同学回答一下'))).toBe(true);
    const alerts = events
      .filter((event) => event.name === 'alert.raised')
      .map((event) => event.data);
    expect(alerts).toContainEqual({
      type: 'keyword_alert',
      level: 'danger',
      keywords: ['点名', '同学回答'],
      text: '好，这个问题我随机点名，请学号尾号是 7 的同学回答一下，删除双向链表的节点要改几个指针？',
      timestamp: expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      // No STUDENT_NAME / STUDENT_NUMBER_DIGITS: someone's roll call, not the student's.
      for_you: false,
    });
    expect(
      alerts.some(
        (alert) => 'level' in alert && alert.level === 'warning' && alert.keywords.includes('作业'),
      ),
    ).toBe(true);
    expect(
      (await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8')).split('\n')[1],
    ).toBe('课程：数据结构');
    expect(harness.app.classAssistant.monitor.status()).toMatchObject({
      state: 'idle',
      is_monitoring: false,
    });
  });

  it('answers the original statuses for repeated and out-of-order calls', async () => {
    harness = await createHarness({ env: [...FAST_MOCK, 'MOCK_INTERVAL_MS=100000'] });
    const post = async (url: string) =>
      (await harness!.request({ method: 'POST', url, payload: {} })).json().status;
    expect(await post('/api/stop_monitor')).toBe('not_running');
    expect(await post('/api/pause_monitor')).toBe('not_running');
    expect(await post('/api/resume_monitor')).toBe('not_running');
    expect(await post('/api/start_monitor')).toBe('started');
    expect(await post('/api/start_monitor')).toBe('already_running');
    expect(await post('/api/resume_monitor')).toBe('not_paused');
    expect(await post('/api/pause_monitor')).toBe('paused');
    expect((await harness.request({ url: '/api/monitor_status' })).json()).toMatchObject({
      state: 'paused',
      is_paused: true,
      recognizer_state: 'paused',
    });
    expect(await post('/api/pause_monitor')).toBe('already_paused');
    expect(await post('/api/resume_monitor')).toBe('resumed');
    expect(await post('/api/stop_monitor?with_summary=false')).toBe('stopped');
  });

  it('writes nothing while paused and continues after resume', async () => {
    harness = await createHarness({
      env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=60', 'MOCK_LOOP=true'],
    });
    const events = record(harness);
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    await waitFor(
      () => events.filter((event) => event.name === 'line.appended').length >= 2,
      10_000,
      'two lines',
    );
    await harness.request({ method: 'POST', url: '/api/pause_monitor' });
    await harness.app.classAssistant.store.readRecent({ count: 1 });
    const paused = (await transcriptLines(harness)).length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await transcriptLines(harness)).length).toBe(paused);
    await harness.request({ method: 'POST', url: '/api/resume_monitor' });
    await waitFor(
      async () => (await transcriptLines(harness!)).length > paused,
      10_000,
      'lines after resume',
    );
  });

  it('activates the chosen material and refuses unknown or unsafe names before starting', async () => {
    harness = await createHarness({ env: [...FAST_MOCK, 'MOCK_INTERVAL_MS=100000'] });
    const { cite } = harness.app.classAssistant;
    const name = await cite.write('deck.pptx', '--- 第 1 页 ---\n链表\n', new Date());
    const missing = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { cite_filename: 'gone.txt' },
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'CITE_FILE_NOT_FOUND', field: 'cite_filename' });
    const unsafe = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { cite_filename: '../.env' },
    });
    expect(unsafe.statusCode).toBe(400);
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
    const started = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { cite_filename: name },
    });
    expect(started.json().status).toBe('started');
    expect(await readFile(join(harness.dataDir, 'current_class_material.txt'), 'utf8')).toBe(
      '--- 第 1 页 ---\n链表\n',
    );
    expect((await harness.request({ url: '/api/monitor_status' })).json().cite_filename).toBe(name);
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
    await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { course_name: 'no material' },
    });
    expect(await readFile(join(harness.dataDir, 'current_class_material.txt'), 'utf8')).toBe('');
  });
});

describe('modes that cannot run', () => {
  it('reports the default local mode clearly instead of crashing, and does not start', async () => {
    harness = await createHarness();
    const response = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: {},
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({
      status: 'error',
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'LOCAL_ASR_LANGUAGE',
      hint: 'Settings to check: LOCAL_ASR_LANGUAGE, VOSK_MODEL_PATH.',
    });
    // A request that says nothing reads Chinese, as the original client's students do.
    const chinese = response.json().message as string;
    expect(chinese).toContain('没有安装中文离线模型（LOCAL_ASR_LANGUAGE=zh）');
    expect(chinese).toContain('class-assistant-backend models pull sense-voice-small');
    expect(chinese).toContain('VOSK_MODEL_PATH');
    expect(chinese).toContain('LOCAL_ASR_LANGUAGE=en');
    expect(chinese).toContain('ASR_MODE=mock');
    const english = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      headers: { 'accept-language': 'en' },
      payload: {},
    });
    const { message } = english.json();
    // Which model to download and how, and the way out on this machine (PocketSphinx is installed).
    expect(message).toContain('No offline model for Chinese (LOCAL_ASR_LANGUAGE=zh)');
    expect(message).toContain('class-assistant-backend models pull vosk-small-cn');
    expect(message).toContain('VOSK_MODEL_PATH');
    expect(message).toContain('LOCAL_ASR_LANGUAGE=en works without a download');
    expect(message).toContain('ASR_MODE=mock');
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });

  it('names the missing keys of the streaming mode and a missing mock script', async () => {
    harness = await createHarness({ env: ['ASR_MODE=stream'] });
    const stream = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: {},
    });
    expect(stream.json()).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'STREAM_ASR_APP_KEY',
      message: expect.stringContaining('需要 STREAM_ASR_APP_KEY 和 STREAM_ASR_ACCESS_KEY'),
    });
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { ASR_MODE: 'mock', MOCK_SCRIPT: join(harness.root, 'nope.txt') } },
    });
    const mock = await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    expect(mock.statusCode).toBe(503);
    expect(mock.json()).toMatchObject({ code: 'RECOGNIZER_UNAVAILABLE', field: 'MOCK_SCRIPT' });
  });

  it('reports a recognizer that fails to start, leaving nothing running', async () => {
    const broken: RecognizerDefinition = {
      mode: 'mock',
      description: 'broken',
      availability: async () => ({ available: true }),
      create: () => ({
        start: async () => {
          throw new Error('microphone busy');
        },
        pause: async () => undefined,
        resume: async () => undefined,
        stop: async () => undefined,
      }),
    };
    harness = await createHarness({
      env: ['ASR_MODE=mock'],
      options: {
        recognizers: createRecognizerRegistry([...defaultRecognizerDefinitions(), broken]),
      },
    });
    const response = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: {},
    });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({
      code: 'RECOGNIZER_FAILED',
      message: '识别方式 mock 没能启动。请检查设置后重试，或切换到演示模式。',
      technical: 'microphone busy',
    });
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });
});

describe('a start that fails', () => {
  it('leaves the previous class’s transcript and the active material as they were', async () => {
    let failure: Error = new Error('unset');
    const failing: RecognizerDefinition = {
      mode: 'local',
      description: 'a microphone that cannot be opened',
      availability: async () => ({ available: true }),
      create: () => ({
        start: async () => {
          throw failure;
        },
        pause: async () => undefined,
        resume: async () => undefined,
        stop: async () => undefined,
      }),
    };
    harness = await createHarness({
      env: FAST_MOCK,
      options: {
        recognizers: createRecognizerRegistry([...defaultRecognizerDefinitions(), failing]),
      },
    });
    const { cite, monitor } = harness.app.classAssistant;
    const previous = await cite.write('week1.pptx', '--- 第 1 页 ---\n栈\n', new Date());
    const next = await cite.write('week2.pptx', '--- 第 1 页 ---\n队列\n', new Date());
    await harness.startMonitor({ course_name: '数据结构', cite_filename: previous });
    await waitFor(() => monitor.status().recognizer_state === 'ended', 10_000, 'the mock class');
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
    const transcriptPath = join(harness.dataDir, 'class_transcript.txt');
    const materialPath = join(harness.dataDir, 'current_class_material.txt');
    const transcript = await readFile(transcriptPath, 'utf8');
    expect(transcript).toContain('数据结构');
    expect((await transcriptLines(harness)).length).toBeGreaterThan(2);

    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { ASR_MODE: 'local' } },
    });
    const events = record(harness);
    for (const [error, status] of [
      [new ServerError('AUDIO_DEVICE_UNAVAILABLE', 'No microphone found.'), 503],
      [new Error('the streaming service refused the keys'), 502],
    ] as const) {
      failure = error;
      const refused = await harness.startMonitor({ course_name: '操作系统', cite_filename: next });
      expect(refused.statusCode).toBe(status);
      expect(await readFile(transcriptPath, 'utf8')).toBe(transcript);
      expect(await readFile(materialPath, 'utf8')).toBe('--- 第 1 页 ---\n栈\n');
      expect(monitor.status()).toMatchObject({ state: 'idle', course_name: '' });
    }
    // Nothing was announced either: no class started, no transcript was reset.
    expect(events.map((event) => event.name)).toEqual([]);
    const transcriptAnswer = (await harness.request({ url: '/api/transcript' })).json();
    expect(transcriptAnswer.course_name).toBe('数据结构');
  });

  it('keeps what the recognizer says while it is starting, after the new transcript begins', async () => {
    const early: RecognizerDefinition = {
      mode: 'cloud',
      description: 'says something before start() resolves',
      availability: async () => ({ available: true }),
      create: (context) => ({
        start: async () => {
          context.emit({ type: 'partial', text: '上课' });
          context.emit({ type: 'text', text: '上课了，今天讲二叉树。' });
          await new Promise((resolve) => setTimeout(resolve, 50));
        },
        pause: async () => undefined,
        resume: async () => undefined,
        stop: async () => undefined,
      }),
    };
    harness = await createHarness({
      env: ['ASR_MODE=cloud'],
      options: { recognizers: createRecognizerRegistry([early]) },
    });
    const events = record(harness);
    expect((await harness.startMonitor({ course_name: '数据结构' })).body.status).toBe('started');
    await waitFor(() => events.some((event) => event.name === 'line.appended'), 5000, 'the line');
    expect(await transcriptLines(harness)).toEqual([expect.stringMatching(/今天讲二叉树。$/)]);
    // The class is announced before its first line.
    const names = events.map((event) => event.name);
    expect(names.indexOf('monitor.changed')).toBeLessThan(names.indexOf('line.appended'));
  });
});

describe('the recognizer seam', () => {
  it('feeds lines, partials, errors and the end through the pipeline', async () => {
    const scripted = scriptedMode('stream');
    harness = await createHarness({
      env: ['ASR_MODE=stream'],
      options: { recognizers: createRecognizerRegistry([scripted.definition]) },
    });
    const events = record(harness);
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    expect(scripted.calls).toEqual(['start']);
    scripted.emit({ type: 'partial', text: '同学们' });
    scripted.emit({ type: 'text', text: '同学们好，今天讲队列。' });
    scripted.emit({ type: 'partial', text: '先复习一下' });
    // The same sentence again is a near-duplicate: written once.
    scripted.emit({ type: 'text', text: '同学们好，今天讲队列。' });
    await waitFor(() => events.some((event) => event.name === 'line.appended'), 5000, 'a line');
    await harness.app.classAssistant.store.readRecent({ count: 5 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await transcriptLines(harness)).toEqual([
      expect.stringMatching(/同学们好，今天讲队列。$/),
    ]);
    expect(
      events.filter((event) => event.name === 'partial.changed').map((event) => event.data),
    ).toContainEqual({
      text: '同学们',
    });
    scripted.emit({
      type: 'error',
      code: 'ASR_PACKET_LATE',
      message: 'a packet came late',
      fatal: false,
    });
    scripted.emit({
      type: 'error',
      code: 'ASR_SOCKET_CLOSED',
      message: 'the ASR service closed the connection',
      fatal: true,
    });
    await waitFor(
      () => harness?.app.classAssistant.monitor.status().recognizer_state === 'failed',
      5000,
      'failed',
    );
    // The UI tells a class that stopped listening from a hiccup it recovers from.
    expect(
      events.filter((event) => event.name === 'error.raised').map((event) => event.data),
    ).toEqual([
      {
        source: 'recognizer',
        mode: 'stream',
        code: 'RECOGNIZER_FAILED',
        message: 'a packet came late',
        fatal: false,
      },
      {
        source: 'recognizer',
        mode: 'stream',
        code: 'RECOGNIZER_FAILED',
        message: 'the ASR service closed the connection',
        fatal: true,
      },
    ]);
    expect(scripted.calls).toEqual(['start', 'stop']);
  });

  it('merges local-mode segments into the previous entry', async () => {
    const scripted = scriptedMode('local');
    harness = await createHarness({
      env: ['ASR_MODE=local'],
      options: { recognizers: createRecognizerRegistry([scripted.definition]) },
    });
    const events = record(harness);
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    scripted.emit({ type: 'segment', text: '循环队列的', startMs: 0, endMs: 800 });
    scripted.emit({ type: 'segment', text: '判满条件是什么', startMs: 1200, endMs: 2400 });
    await waitFor(() => events.some((event) => event.name === 'line.updated'), 5000, 'an update');
    expect(events.find((event) => event.name === 'line.updated')?.data).toMatchObject({
      index: 0,
      text: '循环队列的判满条件是什么',
    });
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
    expect(await transcriptLines(harness)).toEqual([
      expect.stringMatching(/循环队列的判满条件是什么$/),
    ]);
  });
});

describe('keywords', () => {
  it('alerts on a custom keyword (with homophones) and on a reloaded keywords file, mid-class', async () => {
    const scripted = scriptedMode('mock');
    harness = await createHarness({
      env: ['ASR_MODE=mock'],
      options: { recognizers: createRecognizerRegistry([scripted.definition]) },
    });
    const events = record(harness);
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    const updated = await harness.request({
      method: 'POST',
      url: '/api/update_keywords',
      payload: { keywords: ['张三'] },
    });
    expect(updated.json().all_keywords).toContain('张三');
    scripted.emit({ type: 'text', text: '章三同学，你来说一下这个结论。' });
    const alert = await waitFor(
      () => events.find((event) => event.name === 'alert.raised'),
      5000,
      'alert',
    );
    expect(alert.data).toMatchObject({ level: 'danger', keywords: ['张三'] });

    await writeFile(
      join(harness.dataDir, 'keywords.txt'),
      '[注意]\n复习\n[提醒]\n黑板\nthis line is fine\n',
    );
    const reloaded = await harness.request({ method: 'POST', url: '/api/reload_keywords' });
    expect(reloaded.json()).toMatchObject({
      status: 'success',
      file: join(harness.dataDir, 'keywords.txt'),
    });
    expect(reloaded.json().keywords).toEqual(['黑板', 'this line is fine', '复习', '张三']);
    scripted.emit({ type: 'text', text: '大家回去复习第五章的内容。' });
    await waitFor(
      () => events.filter((event) => event.name === 'alert.raised').length === 2,
      5000,
      'second alert',
    );
    expect(events.filter((event) => event.name === 'alert.raised')[1]?.data).toMatchObject({
      level: 'warning',
      keywords: ['复习'],
    });
    const view = (await harness.request({ url: '/api/keywords' })).json();
    expect(view).toMatchObject({
      builtin: ['黑板', 'this line is fine'],
      warning: ['复习'],
      custom: ['张三'],
    });
  });

  it('creates data/keywords.txt with the defaults on first start', async () => {
    harness = await createHarness();
    const text = await readFile(join(harness.dataDir, 'keywords.txt'), 'utf8');
    expect(text).toContain('点名');
    expect((await harness.request({ url: '/api/keywords' })).json().builtin).toContain('点名');
  });
});

describe('GET /api/transcript', () => {
  it('returns the header, entries with indexes, since/limit, and the history summary', async () => {
    harness = await createHarness();
    const { store } = harness.app.classAssistant;
    await store.reset({ courseName: '线性代数', materialName: 'ch3.txt' });
    for (const text of ['第一句话说完了。', '第二句也说完了。', '第三句还在继续。'])
      await store.append(text);
    const all = (await harness.request({ url: '/api/transcript' })).json();
    expect(all).toMatchObject({
      status: 'success',
      course_name: '线性代数',
      material_name: 'ch3.txt',
      history_summary: '',
      total: 3,
      partial: '',
    });
    expect(
      all.entries.map((entry: { index: number; text: string }) => [entry.index, entry.text]),
    ).toEqual([
      [0, '第一句话说完了。'],
      [1, '第二句也说完了。'],
      [2, '第三句还在继续。'],
    ]);
    const since = (await harness.request({ url: '/api/transcript?since=1&limit=1' })).json();
    expect(since.entries.map((entry: { index: number }) => entry.index)).toEqual([2]);
    const bad = await harness.request({ url: '/api/transcript?limit=0' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'querystring.limit' });
  });
});

describe('shutdown', () => {
  it('app.close() stops a running class and leaves every acknowledged line in the file', async () => {
    harness = await createHarness({
      env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=20', 'MOCK_LOOP=true'],
    });
    const events = record(harness);
    await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} });
    await waitFor(
      () => events.filter((event) => event.name === 'line.appended').length >= 5,
      10_000,
      'five lines',
    );
    const dataDir = harness.dataDir;
    await harness.app.close();
    const lines = (await readFile(join(dataDir, 'class_transcript.txt'), 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('['));
    expect(lines).toHaveLength(events.filter((event) => event.name === 'line.appended').length);
    expect(events.at(-1)).toMatchObject({ name: 'monitor.changed', data: { state: 'idle' } });
    expect(await readdir(join(dataDir, 'summaries'))).toEqual([]);
  });
});

describe('start_monitor without a body', () => {
  it('starts with no course and no material, as curl -X POST would', async () => {
    harness = await createHarness({ env: [...FAST_MOCK, 'MOCK_INTERVAL_MS=100000'] });
    const response = await harness.request({ method: 'POST', url: '/api/start_monitor' });
    expect(response.json()).toMatchObject({ status: 'started' });
  });
});
