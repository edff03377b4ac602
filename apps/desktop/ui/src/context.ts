// What the components get from the app: the store and the actions, through Preact's context
// (`useApp()` inside a component).
import type { Signal } from '@preact/signals';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { WindowCapture } from './capture/window-capture.ts';
import type { Player } from './playback.ts';
import type { AppState, PanelName, Store } from './store.ts';
import type { LiveMessage, StopResult } from './types.ts';

/** The app as the views see it. */
export interface AppContext {
  store: Store;
  /** This window's microphone, for classes with AUDIO_INPUT=app. */
  capture: WindowCapture;
  /** The window's player of class audio (a line's ▶). */
  player: Player;
  /** Opens a panel (480x520), or closes the panel with `null` (back to the 320x80 bar). */
  openPanel(panel: PanelName | null): void;
  /** Opens the panel, or closes it when it is the one open. */
  togglePanel(panel: PanelName): void;
  /** A short message in the bar. */
  toast(text: string, kind?: 'info' | 'error'): void;
  /** Starts a class with the course name and material. Errors are thrown for the panel to show. */
  start(body: { course_name: string; cite_filename: string }): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Ends the class; with `withNotes`, the backend writes notes (the LLM may take a while). */
  stop(withNotes: boolean): Promise<StopResult>;
  /**
   * A recording dropped on the window or picked: the class panel opens with its import form (or
   * says why the file cannot be imported).
   */
  pickRecording(file: File): void;
  /**
   * Uploads the recording (`onProgress`: the fraction sent) and starts its import; errors are
   * thrown for the panel to show.
   */
  importRecording(
    file: File,
    fields: { course_name: string; cite_filename: string },
    onProgress: (fraction: number) => void,
    /** Aborts the upload (the backend keeps nothing of it); the promise rejects with ABORTED. */
    signal?: AbortSignal,
  ): Promise<void>;
  /** Stops the running import (what was recognised is kept); errors are thrown. */
  cancelImport(): Promise<void>;
  /** Goes on with a failed or cancelled import; errors are thrown. */
  resumeImport(id: string): Promise<void>;
  /** Opens a class of the library in the library panel. */
  openClass(id: string): void;
  /** Opens the rescue panel and asks at once. */
  rescue(): void;
  /** Opens the catch-up panel and asks at once. */
  catchup(): void;
  /** Opens the transcript at a line (an answer's source) and marks it. */
  showLine(id: number): void;
  dismissAlert(): void;
  /** Sets ASR_MODE=mock (the demo class); true when saved. */
  useDemoMode(): Promise<boolean>;
  /** Re-reads /api/health (what is not configured yet). */
  refreshHealth(): Promise<void>;
  /** Changes a preference of this app (kept in the browser profile). */
  setPreference(
    patch: Partial<Pick<AppState, 'lang' | 'sound' | 'notifications' | 'captionSize'>>,
  ): void;
  /** Enters or leaves the always-on-top window. */
  togglePin(): Promise<void>;
  /** Live events for the panels (material.uploaded, notes.written…); returns the unsubscribe. */
  onLiveEvent(listener: (message: LiveMessage) => void): () => void;
  /** Tries to reach the backend again now. */
  retryConnection(): void;
  /**
   * What was asked of a panel from outside it (the bar, a shortcut, an answer's source); the
   * panel acts on each change in an effect.
   */
  requests: {
    /** Grows each time rescue is asked for. */
    rescue: Signal<number>;
    /** Grows each time catch-up is asked for. */
    catchup: Signal<number>;
    /** The line to scroll to and mark; a new object each time. */
    reveal: Signal<{ id: number } | null>;
    /** The recording dropped or picked last, for the class panel; a new object each time. */
    recording: Signal<{ file: File } | null>;
    /** The library class to open; a new object each time. */
    libraryClass: Signal<{ id: string } | null>;
  };
}

const AppContextOf = createContext<AppContext | null>(null);

/** Provides the app to the components below. */
export const AppProvider = AppContextOf.Provider;

/** The app, inside a component. */
export function useApp(): AppContext {
  const app = useContext(AppContextOf);
  if (!app) throw new Error('useApp() outside <AppProvider>');
  return app;
}
