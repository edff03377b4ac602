import { describe, expect, it } from 'vitest';
import { createLiveSync, type LiveSyncOptions } from './live-sync.ts';
import { type AppState, createStore, IDLE_MONITOR } from './store.ts';
import type {
  ImportStatus,
  LiveMessage,
  MonitorStatus,
  TranscriptAnswer,
  TranscriptLine,
} from './types.ts';

const running: MonitorStatus = {
  ...IDLE_MONITOR,
  state: 'running',
  is_monitoring: true,
  course_name: '数据结构',
  asr_mode: 'mock',
  started_at: '2026-11-23T10:00:00.000Z',
  recognizer_state: 'running',
};

const line = (id: number, text: string, index = id - 1): TranscriptLine => ({
  id,
  index,
  timestamp: `10:00:${String(id).padStart(2, '0')}`,
  text,
  page: null,
  translation: null,
  audio_ms: null,
});

function answer(entries: TranscriptLine[], summary = ''): TranscriptAnswer {
  return {
    status: 'success',
    path: 'data/class_transcript.txt',
    course_name: '数据结构',
    material_name: null,
    started_at: null,
    history_summary: summary,
    total: entries.length,
    entries,
    partial: '',
    last_event_id: 0,
  };
}

function setup(initial: Partial<AppState> = {}) {
  const store = createStore({
    connection: 'online',
    retryAt: null,
    health: null,
    monitor: IDLE_MONITOR,
    lines: [],
    partial: '',
    historySummary: '',
    keywords: [],
    alert: null,
    panel: null,
    lang: 'zh',
    sound: false,
    notifications: false,
    captionSize: 'normal',
    toast: null,
    pinned: false,
    capture: null,
    import: null,
    room: { width: 320, height: 80 },
    ...initial,
  });
  const effects: string[] = [];
  const loads: Array<(value: { transcript: TranscriptAnswer; monitor: MonitorStatus }) => void> =
    [];
  const options: LiveSyncOptions = {
    store,
    load: () => new Promise((resolve) => loads.push(resolve)),
    afterReload: (restarted) => effects.push(`reloaded:${restarted}`),
    effects: {
      alert: (alert) => effects.push(`alert:${alert.level}:${alert.keywords.join(',')}`),
      recognizerEnded: () => effects.push('ended'),
      notesWritten: (filename) => effects.push(`notes:${filename}`),
      backgroundError: (error) => effects.push(`error:${error.source}:${error.code}`),
    },
  };
  return { store, effects, loads, sync: createLiveSync(options) };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

const importing = (id: string, fraction: number, updatedAt: string): ImportStatus => ({
  id,
  file_name: 'lecture.mp3',
  state: 'running',
  class_id: `class-${id}`,
  course_name: 'lecture',
  fraction,
  position_ms: Math.round(fraction * 600_000),
  duration_ms: 600_000,
  eta_ms: 60_000,
  lines: 3,
  notes: 'pending',
  warning: null,
  error: null,
  resumable: false,
  started_at: `2026-11-23T10:0${id}:00.000Z`,
  updated_at: updatedAt,
});

describe('the live-state sync', () => {
  it('follows the import; an answer older than the last event never takes it back', () => {
    const { store, sync } = setup();
    sync.apply({ name: 'import.changed', data: importing('1', 0.2, '2026-11-23T10:05:00.000Z') });
    expect(store.get().import?.fraction).toBe(0.2);
    // GET /api/import answered before the event came, and arrives after it.
    sync.setImport(importing('1', 0.1, '2026-11-23T10:04:59.000Z'));
    sync.setImport(null);
    expect(store.get().import?.fraction).toBe(0.2);
    // A newer import replaces the older one; the older one's late word does not come back.
    sync.apply({ name: 'import.changed', data: importing('2', 0.05, '2026-11-23T10:06:00.000Z') });
    sync.apply({ name: 'import.changed', data: importing('1', 1, '2026-11-23T10:07:00.000Z') });
    expect(store.get().import).toMatchObject({ id: '2', fraction: 0.05 });
  });

  it('shows a line’s translation as it streams, also one that arrives during a reload', async () => {
    const { store, sync, loads } = setup({ monitor: running });
    sync.apply({ name: 'line.appended', data: line(1, '同学们好') });
    sync.apply({ name: 'line.translated', data: { id: 1, translation: 'Hello', final: false } });
    expect(store.get().lines[0]?.translation).toBe('Hello');
    sync.apply({
      name: 'line.translated',
      data: { id: 1, translation: 'Hello, everyone', final: true },
    });
    expect(store.get().lines[0]?.translation).toBe('Hello, everyone');
    // A line not shown is left alone.
    const before = store.get().lines;
    sync.apply({ name: 'line.translated', data: { id: 9, translation: 'Nine', final: true } });
    expect(store.get().lines).toBe(before);
    // During a reload the translation waits for the lines it belongs to.
    void sync.reload(false);
    sync.apply({ name: 'line.translated', data: { id: 2, translation: 'Queues', final: true } });
    loads[0]!({ transcript: answer([line(1, '同学们好'), line(2, '队列')]), monitor: running });
    await settle();
    expect(store.get().lines.map((entry) => entry.translation)).toEqual([null, 'Queues']);
  });

  it('applies lines by id: an update after a fold replaces the same line, no reload', async () => {
    const { store, sync, loads } = setup({ monitor: running });
    sync.apply({ name: 'line.appended', data: line(1, '同学们好') });
    sync.apply({ name: 'line.appended', data: line(2, '今天讲队列') });
    sync.apply({
      name: 'history.folded',
      data: { summary: '开场', folded_entries: 1, remaining_entries: 1, first_id: 2 },
    });
    // After the fold the file position of line 2 is 0; its id is still 2.
    sync.apply({ name: 'line.updated', data: line(2, '今天讲队列和栈', 0) });
    sync.apply({ name: 'line.appended', data: line(3, '先看入队', 1) });
    expect(loads).toHaveLength(0);
    expect(store.get().historySummary).toBe('开场');
    expect(store.get().lines.map((entry) => [entry.id, entry.text])).toEqual([
      [1, '同学们好'],
      [2, '今天讲队列和栈'],
      [3, '先看入队'],
    ]);
  });

  it('holds line events back during a reload and applies them after it', async () => {
    const { store, sync, loads, effects } = setup();
    const done = sync.reload(true);
    sync.apply({ name: 'line.appended', data: line(3, '第三句') });
    sync.apply({ name: 'partial.changed', data: { text: '第四' } });
    expect(store.get().lines).toEqual([]);
    expect(store.get().partial).toBe('第四');
    loads[0]!({ transcript: answer([line(1, '第一句'), line(2, '第二句')]), monitor: running });
    await done;
    expect(store.get().lines.map((entry) => entry.id)).toEqual([1, 2, 3]);
    expect(store.get().monitor.course_name).toBe('数据结构');
    expect(effects).toEqual(['reloaded:true']);
  });

  it('starts a new transcript when a class starts: old lines dropped, the new one read', async () => {
    const { store, sync, loads } = setup({ lines: [line(1, '上节课')] });
    sync.apply({ name: 'monitor.changed', data: running });
    expect(store.get().lines).toEqual([]);
    expect(loads).toHaveLength(1);
    loads[0]!({ transcript: answer([line(1, '新课第一句')]), monitor: running });
    await settle();
    expect(store.get().lines.map((entry) => entry.text)).toEqual(['新课第一句']);
    // The same class again (a status refresh) changes nothing.
    sync.apply({ name: 'monitor.changed', data: { ...running, is_paused: true } });
    expect(loads).toHaveLength(1);
  });

  it('runs one more reload when one is asked for while another runs', async () => {
    const { sync, loads } = setup();
    const first = sync.reload(false);
    void sync.reload(false);
    loads[0]!({ transcript: answer([]), monitor: IDLE_MONITOR });
    await settle();
    expect(loads).toHaveLength(2);
    loads[1]!({ transcript: answer([]), monitor: IDLE_MONITOR });
    await first;
  });

  it('hands alerts, notes, errors and the recognizer end to the effects', () => {
    const { sync, effects } = setup({ monitor: running });
    const messages: LiveMessage[] = [
      {
        name: 'alert.raised',
        data: {
          type: 'keyword_alert',
          level: 'danger',
          keywords: ['张三'],
          text: '张三你来回答',
          for_you: true,
          timestamp: '10:00:09',
        },
      },
      { name: 'notes.written', data: { filename: 'x.md', course_name: '数据结构' } },
      {
        name: 'error.raised',
        data: { source: 'recognizer', code: 'X', message: 'm', mode: 'mock' },
      },
      { name: 'monitor.changed', data: { ...running, recognizer_state: 'ended' } },
      { name: 'monitor.changed', data: { ...running, recognizer_state: 'ended' } },
    ];
    for (const message of messages) sync.apply(message);
    expect(effects).toEqual(['alert:danger:张三', 'notes:x.md', 'error:recognizer:X', 'ended']);
  });

  it('keeps the app window’s capture status from the stream’s opening and its events', () => {
    const { store, sync } = setup();
    const off = {
      state: 'off',
      connected: false,
      device: '',
      problem: null,
      message: 'No class is listening to the app window.',
    } as const;
    sync.opened(
      {
        last_event_id: 0,
        replayed: 0,
        gap: false,
        monitor: IDLE_MONITOR,
        partial: '',
        capture: off,
        heartbeat_ms: 1000,
      },
      false,
    );
    expect(store.get().capture).toEqual(off);
    const stopped = {
      ...off,
      state: 'stopped',
      connected: true,
      problem: 'no-audio',
      message: 'silent',
    } as const;
    sync.apply({ name: 'capture.changed', data: stopped });
    expect(store.get().capture).toEqual(stopped);
  });
});
