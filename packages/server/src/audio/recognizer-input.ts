/**
 * What the audio side tells the recognizers: what a running recognizer listens to, and whether a
 * mode can start. Both live here so audio/ never depends on recognizers/.
 */
import type { ServerErrorCode } from '../errors.ts';
import type { MessageText } from '../language.ts';

/** What a running recognizer listens to, for the microphone check. */
export interface RecognizerInput {
  kind: 'microphone' | 'app' | 'file';
  /** Device name or file path. */
  name: string;
  sampleRate: number;
  channels: number;
  /** Energy (RMS) of the latest audio. */
  level: number;
  /** The length of a file, in ms (file sources). */
  durationMs?: number;
}

/** Whether a mode can start with the current settings and machine. */
export type RecognizerAvailability =
  | { available: true; detail?: string }
  | {
      available: false;
      /** Why not, for the student (in both languages where it is translated). */
      message: MessageText;
      /** Settings keys that would fix it. */
      settings: string[];
      /** The error code start_monitor answers with (default RECOGNIZER_UNAVAILABLE). */
      code?: ServerErrorCode;
    };

/** How far a recognizer listening to a file is: share done, position and length in ms. */
export interface RecordingProgress {
  fraction: number;
  positionMs: number;
  durationMs?: number;
}
