/**
 * The audio source of a recognizer that listens: the one AUDIO_INPUT selects (or the one a test
 * gives), with what the class keeps of it (the tap) and where a recording's positions are
 * (the position tracker) — the same for every mode, so none can forget either.
 */
import { type AudioSource, createAudioSource } from '../audio/audio-source.ts';
import { tapAudio } from '../audio/audio-tap.ts';
import { trackRecordingPosition } from '../audio/recording-position.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { RecognizerContext } from './recognizer.ts';

/**
 * `given`, or the source of the settings, tapped for the class's kept audio and tracked for a
 * recording's positions. `onWarning` hears of problems that do not stop it (audio dropped).
 */
export function recognizerAudioSource(
  settings: ResolvedSettings,
  context: RecognizerContext,
  given: AudioSource | undefined,
  onWarning: (message: string) => void,
): AudioSource {
  return trackRecordingPosition(
    tapAudio(
      given ??
        createAudioSource(settings, context.dataDir, {
          onWarning,
          ...(context.appCapture ? { appCapture: context.appCapture } : {}),
          ...(context.startAtMs ? { startAtMs: context.startAtMs } : {}),
        }),
      context.onAudio,
    ),
  );
}
