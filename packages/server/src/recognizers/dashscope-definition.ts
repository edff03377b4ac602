// ASR_MODE=dashscope as the registry sees it: what the mode needs (checked by /api/health and
// before a class starts) and how a recognizer is made. The client (dashscope-recognizer.ts, with
// its WebSocket protocol) is loaded when a class in this mode starts.
import { audioInputAvailability } from '../audio/audio-source.ts';
import { localized } from '../language.ts';
import { lazyRecognizer } from './lazy-recognizer.ts';
import type { RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';

/** ASR_MODE=dashscope. */
export const dashscopeRecognizerDefinition: RecognizerDefinition = {
  mode: 'dashscope',
  description: 'DashScope (Alibaba Cloud Model Studio) real-time recognition (fun-asr-realtime)',
  needs: { audio: ['microphone', 'app', 'file'], settings: ['DASHSCOPE_API_KEY'], model: false },
  async availability(settings, where): Promise<RecognizerAvailability> {
    if (settings.dashscopeApiKey === '') {
      return {
        available: false,
        message: localized(
          'ASR_MODE=dashscope 需要 DASHSCOPE_API_KEY（阿里云百炼的 API Key，见 bailian.console.aliyun.com）。',
          'ASR_MODE=dashscope needs DASHSCOPE_API_KEY (an API key of Alibaba Cloud Model Studio, bailian.console.aliyun.com).',
        ),
        settings: ['DASHSCOPE_API_KEY'],
      };
    }
    const input = await audioInputAvailability(settings, where?.dataDir ?? '.');
    if (!input.available) return input;
    return {
      available: true,
      detail: `${settings.dashscopeWsUrl} (${settings.dashscopeAsrModel}); listening to ${input.detail}`,
    };
  },
  create: (context) =>
    lazyRecognizer(async () =>
      (await import('./dashscope-recognizer.ts')).createDashscopeRecognizer({ context }),
    ),
};
