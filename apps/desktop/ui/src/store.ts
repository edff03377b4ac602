// The UI's one state object; views subscribe and update the parts that changed.
import type { Lang } from './i18n.ts';
import type {
  CaptureStatus,
  Health,
  KeywordAlert,
  MonitorStatus,
  TranscriptLine,
} from './types.ts';

/** The panels of the 480x520 window. */
export type PanelName =
  | 'class'
  | 'transcript'
  | 'rescue'
  | 'catchup'
  | 'ask'
  | 'notes'
  | 'library'
  | 'keywords'
  | 'settings';

/** The state of the connection to the backend. */
export type Connection = 'connecting' | 'online' | 'offline';

/** An alert being shown. */
interface ActiveAlert extends KeywordAlert {
  /** Grows with each alert, so the same words twice still flash again. */
  serial: number;
}

/** Everything the views show. */
export interface AppState {
  connection: Connection;
  /** When the next reconnection attempt starts (ms since epoch), while offline. */
  retryAt: number | null;
  health: Health | null;
  monitor: MonitorStatus;
  /** The newest transcript lines (at most {@link MAX_LINES}), by ascending id. */
  lines: TranscriptLine[];
  partial: string;
  historySummary: string;
  /** Every alert keyword (highlighted in the transcript). */
  keywords: string[];
  alert: ActiveAlert | null;
  panel: PanelName | null;
  lang: Lang;
  sound: boolean;
  notifications: boolean;
  /** A short message shown in the bar for a few seconds. */
  toast: { text: string; kind: 'info' | 'error' } | null;
  /** True while the app sits in a Document Picture-in-Picture window. */
  pinned: boolean;
  /** The app window's microphone as the backend sees it (AUDIO_INPUT=app); null before it said. */
  capture: CaptureStatus | null;
  /**
   * The size the app is drawn at (CSS pixels): what the window gave, which may be less than
   * asked for (a browser tab that cannot resize, a capped Picture-in-Picture window).
   */
  room: { width: number; height: number };
}

/** Lines kept in memory for the transcript panel. */
export const MAX_LINES = 2000;

/** An idle monitor, before the backend said anything. */
export const IDLE_MONITOR: MonitorStatus = {
  state: 'idle',
  is_monitoring: false,
  is_paused: false,
  course_name: '',
  asr_mode: '',
  cite_filename: '',
  started_at: null,
  recognizer_state: null,
  interruption: null,
};

/** A minimal observable store. */
export interface Store {
  get(): AppState;
  set(patch: Partial<AppState>): void;
  /** Calls `listener(state, previous)` after every change; returns the unsubscribe function. */
  subscribe(listener: (state: AppState, previous: AppState) => void): () => void;
}

/** Creates the store. */
export function createStore(initial: AppState): Store {
  let state = initial;
  const listeners = new Set<(state: AppState, previous: AppState) => void>();
  return {
    get: () => state,
    set(patch) {
      const previous = state;
      state = { ...state, ...patch };
      for (const listener of [...listeners]) listener(state, previous);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/**
 * Adds or replaces a line by its id, keeping order and the size limit. Ids never change (not
 * even when older lines are folded into the history summary), so a line is found by id alone.
 */
export function upsertLine(
  lines: readonly TranscriptLine[],
  line: TranscriptLine,
): TranscriptLine[] {
  const last = lines[lines.length - 1];
  if (!last || last.id < line.id) return [...lines, line].slice(-MAX_LINES);
  const next = lines.filter((existing) => existing.id !== line.id);
  next.push(line);
  next.sort((a, b) => a.id - b.id);
  return next.slice(-MAX_LINES);
}
