// ASR_MODE=stream as the registry sees it: what the mode needs (checked by /api/health and
// before a class starts) and how a recognizer is made. The client (stream-recognizer.ts, with
// the streaming protocol) is loaded when a class in this mode starts.
import { audioInputAvailability } from '../audio/audio-source.ts';
import { localized } from '../language.ts';
import { lazyRecognizer } from './lazy-recognizer.ts';
import type { RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';

/** ASR_MODE=stream. */
export const streamRecognizerDefinition: RecognizerDefinition = {
  mode: 'stream',
  description: 'online streaming recognition (bigmodel WebSocket protocol)',
  needs: {
    audio: ['microphone', 'app', 'file'],
    settings: ['STREAM_ASR_APP_KEY', 'STREAM_ASR_ACCESS_KEY'],
    model: false,
  },
  async availability(settings, where): Promise<RecognizerAvailability> {
    const missing = [
      settings.streamAsrAppKey === '' ? 'STREAM_ASR_APP_KEY' : '',
      settings.streamAsrAccessKey === '' ? 'STREAM_ASR_ACCESS_KEY' : '',
    ].filter((key) => key !== '');
    if (missing.length > 0) {
      return {
        available: false,
        message: localized(
          `ASR_MODE=stream 需要 ${missing.join(' 和 ')}（流式识别服务控制台里的应用 ID 和访问令牌）。`,
          `ASR_MODE=stream needs ${missing.join(' and ')} (the application id and access token from the streaming provider's console).`,
        ),
        settings: missing,
      };
    }
    const input = await audioInputAvailability(settings, where?.dataDir ?? '.');
    if (!input.available) return input;
    return {
      available: true,
      detail: `${settings.streamAsrUrl} (${settings.streamAsrEndpoint}); listening to ${input.detail}`,
    };
  },
  create: (context) =>
    lazyRecognizer(async () =>
      (await import('./stream-recognizer.ts')).createStreamRecognizer({ context }),
    ),
};
