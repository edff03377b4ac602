// The class audio played from a line: one <audio> element per window, the class it plays and
// where it is, as a signal the line lists and the player strip read. A class still being recorded
// has audio that grows: a seek past what the element has loaded loads the file again.
import { type ReadonlySignal, signal } from '@preact/signals';
import { call, routeUrl } from './api.ts';

/** Why playback stopped by itself: the end of the audio, a class without audio, a failure. */
export interface PlaybackProblem {
  kind: 'ended' | 'no-audio' | 'failed';
  /** The system's words, for a details view. */
  technical?: string;
}

/** What is playing. */
interface PlaybackState {
  classId: string;
  /** True for the class being recorded (its audio grows). */
  live: boolean;
  /** Where the audio is, ms from its start. */
  positionMs: number;
  /** The audio's length, ms; null while the element does not know it. */
  durationMs: number | null;
  paused: boolean;
  problem: PlaybackProblem | null;
}

/** The window's player. */
export interface Player {
  /** What plays; null when nothing does (stopped, or never started). */
  state: ReadonlySignal<PlaybackState | null>;
  /** Plays class `classId`'s audio from `ms`; `live` for the class being recorded. */
  play(classId: string, ms: number, options?: { live?: boolean }): Promise<void>;
  /** Pauses, or resumes what was paused (from the start again after the end). */
  toggle(): void;
  /** Stops and forgets the class. */
  stop(): void;
}

/** A line as the player sees it. */
interface TimedLine {
  id: number;
  audio_ms: number | null;
}

/**
 * The line being heard at `positionMs`: the last one whose speech starts at or before it
 * (null before the first line's start or without timed lines).
 *
 * @example
 * heardLine([{ id: 1, audio_ms: 0 }, { id: 2, audio_ms: 3000 }], 3200); // 2
 */
export function heardLine(lines: readonly TimedLine[], positionMs: number): number | null {
  let heard: TimedLine | null = null;
  for (const line of lines) {
    if (line.audio_ms === null || line.audio_ms > positionMs) continue;
    if (heard === null || line.audio_ms >= (heard.audio_ms as number)) heard = line;
  }
  return heard?.id ?? null;
}

/** The URL of a class's audio; `fresh` adds a cache-buster so a grown file is read again. */
function audioUrl(classId: string, fresh: boolean): string {
  const { url } = routeUrl('GET /api/classes/:id/audio', { params: { id: classId } });
  return fresh ? `${url}?t=${Date.now()}` : url;
}

/** How far the element can seek without loading again, seconds. */
function loadedEnd(audio: HTMLMediaElement): number {
  const ranges = audio.seekable;
  if (ranges.length > 0) return ranges.end(ranges.length - 1);
  return Number.isFinite(audio.duration) ? audio.duration : 0;
}

/** Why the audio at `url` did not play, asked of the backend. */
async function problemOf(url: string, media: MediaError | null): Promise<PlaybackProblem> {
  const technical = media?.message || undefined;
  try {
    const response = await fetch(url, { headers: { range: 'bytes=0-0' } });
    if (response.status === 404) {
      const body = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
      if (body.code === 'CLASS_AUDIO_NOT_FOUND') {
        return { kind: 'no-audio', ...(body.message ? { technical: body.message } : {}) };
      }
      return { kind: 'failed', ...(body.message ? { technical: body.message } : {}) };
    }
  } catch (error) {
    return { kind: 'failed', technical: String(error) };
  }
  return { kind: 'failed', ...(technical ? { technical } : {}) };
}

/**
 * The id of the class being recorded (the library lists it, newest first, as `live`), or null.
 */
export async function liveClassId(): Promise<string | null> {
  const answer = await call('GET /api/classes', { query: { limit: 5 } });
  return answer.items.find((item) => item.live)?.id ?? null;
}

/** Makes the window's player around its `<audio>` element. */
export function createPlayer(audio: HTMLAudioElement): Player {
  const state = signal<PlaybackState | null>(null);
  /** Where a live class's audio was loaded again after it ended there (once per place). */
  let reloadedAtEnd: number | null = null;

  const update = (patch: Partial<PlaybackState>) => {
    if (state.value) state.value = { ...state.value, ...patch };
  };
  const duration = () =>
    Number.isFinite(audio.duration) ? Math.round(audio.duration * 1000) : null;

  /** Loads the class's audio (again, for a live class) and seeks to `seconds`. */
  const load = (classId: string, seconds: number, fresh: boolean) => {
    audio.src = audioUrl(classId, fresh);
    audio.currentTime = seconds;
  };

  const start = async () => {
    try {
      await audio.play();
    } catch (error) {
      // A play() cut short by a new source or a stop is not a failure.
      if (error instanceof DOMException && error.name === 'AbortError') return;
      if (audio.error) return; // The error event tells.
      update({ paused: true, problem: { kind: 'failed', technical: String(error) } });
    }
  };

  audio.addEventListener('timeupdate', () => {
    update({ positionMs: Math.round(audio.currentTime * 1000), durationMs: duration() });
  });
  audio.addEventListener('durationchange', () => update({ durationMs: duration() }));
  audio.addEventListener('play', () => update({ paused: false, problem: null }));
  audio.addEventListener('pause', () => update({ paused: true }));
  audio.addEventListener('ended', () => {
    const now = state.value;
    if (!now) return;
    const at = audio.currentTime;
    // The class is still being recorded: there may be more audio now than when it loaded.
    if (now.live && (reloadedAtEnd === null || Math.abs(reloadedAtEnd - at) > 1)) {
      reloadedAtEnd = at;
      load(now.classId, at, true);
      void start();
      return;
    }
    update({ paused: true, problem: { kind: 'ended' } });
  });
  audio.addEventListener('error', () => {
    const now = state.value;
    const url = audio.getAttribute('src');
    if (!now || !url) return;
    const media = audio.error;
    void problemOf(url, media).then((problem) => {
      if (state.value?.classId === now.classId) update({ paused: true, problem });
    });
  });

  return {
    state,
    async play(classId, ms, options = {}) {
      const live = options.live ?? false;
      const seconds = ms / 1000;
      const same =
        state.value?.classId === classId && audio.getAttribute('src') !== null && !audio.error;
      state.value = {
        classId,
        live,
        positionMs: ms,
        durationMs: same ? duration() : null,
        paused: false,
        problem: null,
      };
      reloadedAtEnd = null;
      if (!same) load(classId, seconds, live);
      else if (live && seconds > loadedEnd(audio)) load(classId, seconds, true);
      else audio.currentTime = seconds;
      await start();
    },
    toggle() {
      if (!state.value) return;
      if (audio.paused) {
        update({ problem: null });
        void start();
      } else audio.pause();
    },
    stop() {
      state.value = null;
      audio.pause();
      audio.removeAttribute('src');
      audio.load();
    },
  };
}
