import type { ResolvedSettings } from '../settings/settings-store.ts';
import { cloudRecognizerDefinition } from './cloud-recognizer.ts';
import { localRecognizerDefinition } from './local-recognizer.ts';
import { mockRecognizerDefinition } from './mock-recognizer.ts';
import type { RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';
import { streamRecognizerDefinition } from './stream-recognizer.ts';

/**
 * A mode a build defines but does not implement (a trimmed build, a platform without a piece).
 * It is listed (so ASR_MODE accepts it and /api/health explains it) and start_monitor answers
 * RECOGNIZER_UNAVAILABLE with what to set instead of crashing.
 */
export function unimplementedRecognizer(
  mode: string,
  description: string,
  missing: (settings: ResolvedSettings) => string[],
): RecognizerDefinition {
  return {
    mode,
    description,
    async availability(settings): Promise<RecognizerAvailability> {
      const unset = missing(settings);
      const needs = unset.length > 0 ? ` It will also need ${unset.join(', ')}.` : '';
      return {
        available: false,
        notImplemented: true,
        message: `ASR_MODE=${mode} (${description}) is not available in this build yet.${needs} Set ASR_MODE=mock in the settings to run the scripted demo class.`,
        settings: ['ASR_MODE', ...unset],
      };
    },
    create() {
      throw new Error(`ASR_MODE=${mode} is not implemented in this build`);
    },
  };
}

/**
 * The recognizers of this build: local (offline, the default), stream (online streaming), cloud
 * (OpenAI-compatible transcription) and mock (a scripted class).
 */
export function defaultRecognizerDefinitions(): RecognizerDefinition[] {
  return [
    localRecognizerDefinition,
    streamRecognizerDefinition,
    cloudRecognizerDefinition,
    mockRecognizerDefinition,
  ];
}
