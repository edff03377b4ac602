// ASR_MODE=cloud as the registry sees it: what the mode needs (checked by /api/health and before
// a class starts) and how a recognizer is made. The recognizer (cloud-recognizer.ts: the VAD,
// the WAV encoder, the openai SDK) is loaded when a class in this mode starts.
import { audioInputAvailability } from '../audio/audio-source.ts';
import type { CloudAsrClientFactory } from './cloud-recognizer.ts';
import { lazyRecognizer } from './lazy-recognizer.ts';
import type { RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';

/**
 * The cloud mode with a given client factory (the default builds the SDK from the settings).
 *
 * @example
 * createRecognizerRegistry([...defaultRecognizerDefinitions(), createCloudRecognizerDefinition(myFactory)]);
 */
export function createCloudRecognizerDefinition(
  factory?: CloudAsrClientFactory,
): RecognizerDefinition {
  return {
    mode: 'cloud',
    description: 'phrases detected by the energy VAD, transcribed by an OpenAI-compatible API',
    needs: {
      audio: ['microphone', 'app', 'file'],
      settings: ['CLOUD_ASR_BASE_URL', 'CLOUD_ASR_API_KEY', 'CLOUD_ASR_MODEL'],
      model: false,
    },
    async availability(settings, where): Promise<RecognizerAvailability> {
      const missing = [
        settings.cloudAsrBaseUrl === '' ? 'CLOUD_ASR_BASE_URL' : '',
        settings.cloudAsrApiKey === '' ? 'CLOUD_ASR_API_KEY' : '',
      ].filter((key) => key !== '');
      if (missing.length > 0) {
        return {
          available: false,
          message: `ASR_MODE=cloud needs ${missing.join(' and ')} (an OpenAI-compatible transcription API; empty values fall back to LLM_BASE_URL and LLM_API_KEY).`,
          settings: missing,
        };
      }
      const input = await audioInputAvailability(settings, where?.dataDir ?? '.');
      if (!input.available) return input;
      return {
        available: true,
        detail: `${settings.cloudAsrModel} at ${settings.cloudAsrBaseUrl}; listening to ${input.detail}`,
      };
    },
    create: (context) =>
      lazyRecognizer(async () =>
        (await import('./cloud-recognizer.ts')).createCloudRecognizer(context, factory),
      ),
  };
}

/** ASR_MODE=cloud with the default SDK client. */
export const cloudRecognizerDefinition: RecognizerDefinition = createCloudRecognizerDefinition();
