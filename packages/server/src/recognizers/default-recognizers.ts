import type { ResolvedSettings } from '../settings/settings-store.ts';
import { mockRecognizerDefinition } from './mock-recognizer.ts';
import type { RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';

/**
 * A mode the product defines but this build does not implement yet. It is listed (so ASR_MODE
 * accepts it and /api/health explains it) and start_monitor answers RECOGNIZER_UNAVAILABLE with
 * what to set instead of crashing. A later build registers the real definition under the same mode.
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

/** The recognizers of this build: mock implemented; local, stream and cloud not yet. */
export function defaultRecognizerDefinitions(): RecognizerDefinition[] {
  return [
    unimplementedRecognizer('local', 'offline recognition from the microphone', (settings) =>
      settings.voskModelPath === '' ? ['VOSK_MODEL_PATH'] : [],
    ),
    unimplementedRecognizer('stream', 'online streaming recognition', (settings) =>
      [
        settings.streamAsrAppKey === '' ? 'STREAM_ASR_APP_KEY' : '',
        settings.streamAsrAccessKey === '' ? 'STREAM_ASR_ACCESS_KEY' : '',
      ].filter((key) => key !== ''),
    ),
    unimplementedRecognizer('cloud', 'cloud transcription of detected speech', (settings) =>
      settings.cloudAsrApiKey === '' ? ['CLOUD_ASR_API_KEY'] : [],
    ),
    mockRecognizerDefinition,
  ];
}
