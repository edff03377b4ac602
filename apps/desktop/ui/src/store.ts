// The UI's state: one object held in a signal. Components read slices of it (`store.use('lines')`)
// and re-render when that slice changes; code outside components reads it with get/set/subscribe.
import { computed, effect, type ReadonlySignal, signal, untracked } from '@preact/signals';
import type { Lang } from './i18n.ts';
import type {
  CaptureStatus,
  Health,
  ImportStatus,
  KeywordAlert,
  MonitorStatus,
  TranscriptLine,
} from './types.ts';

/** The panels of the 480x520 window. */
export type PanelName =
  | 'class'
  | 'transcript'
  | 'material'
  | 'rescue'
  | 'catchup'
  | 'ask'
  | 'notes'
  | 'library'
  | 'keywords'
  | 'settings';

/** The three steps of caption text size. */
export const CAPTION_SIZES = ['normal', 'large', 'larger'] as const;
export type CaptionSize = (typeof CAPTION_SIZES)[number];

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
  /**
   * The size of the caption text (the bar's line and the transcript), a preference of this app:
   * the root element carries it as `data-caption-size`, and the CSS scales by `--caption-scale`.
   */
  captionSize: CaptionSize;
  /** A short message shown in the bar for a few seconds. */
  toast: { text: string; kind: 'info' | 'error' } | null;
  /** True while the app sits in a Document Picture-in-Picture window. */
  pinned: boolean;
  /** The app window's microphone as the backend sees it (AUDIO_INPUT=app); null before it said. */
  capture: CaptureStatus | null;
  /** The recording being imported, else the latest import (`import.changed`); null: none. */
  import: ImportStatus | null;
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

/** The app's state, observable as a whole and by slice. */
export interface Store {
  get(): AppState;
  set(patch: Partial<AppState>): void;
  /** Calls `listener(state, previous)` after every change; returns the unsubscribe function. */
  subscribe(listener: (state: AppState, previous: AppState) => void): () => void;
  /**
   * One field as a signal: a component reading `.value` re-renders when that field changes
   * (and only then).
   */
  use<K extends keyof AppState>(key: K): ReadonlySignal<AppState[K]>;
}

/** Creates the store. */
export function createStore(initial: AppState): Store {
  const state = signal(initial);
  const slices = new Map<keyof AppState, ReadonlySignal<unknown>>();
  return {
    get: () => state.peek(),
    set(patch) {
      state.value = { ...state.peek(), ...patch };
    },
    subscribe(listener) {
      let previous = state.peek();
      return effect(() => {
        const next = state.value;
        if (next === previous) return;
        const before = previous;
        previous = next;
        untracked(() => listener(next, before));
      });
    },
    use<K extends keyof AppState>(key: K) {
      let slice = slices.get(key);
      if (!slice) {
        slice = computed(() => state.value[key]);
        slices.set(key, slice);
      }
      return slice as ReadonlySignal<AppState[K]>;
    },
  };
}

/**
 * Sets the translation of line `id` (as it streams in); the same array when the line is not
 * shown or already says that.
 */
export function translateLine(
  lines: readonly TranscriptLine[],
  id: number,
  translation: string,
): TranscriptLine[] {
  const index = lines.findIndex((line) => line.id === id);
  if (index < 0 || lines[index]!.translation === translation) return lines as TranscriptLine[];
  const next = [...lines];
  next[index] = { ...lines[index]!, translation };
  return next;
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
