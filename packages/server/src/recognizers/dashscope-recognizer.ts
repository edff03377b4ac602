/**
 * ASR_MODE=dashscope: Alibaba Cloud Model Studio (DashScope) real-time recognition
 * (DASHSCOPE_ASR_MODEL, fun-asr-realtime by default) over its WebSocket duplex API, the original
 * product's cloud provider. 16 kHz PCM from the class's audio source in 100 ms packets; each
 * final sentence (`sentence_end`) is a transcript line, the sentence being heard is the partial
 * text. Reconnection and resending are the resending recognizer's (resending-recognizer.ts).
 */
import { RECOGNIZER_SAMPLE_RATE } from '../audio/pcm.ts';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { isDashscopeError, openDashscopeTask } from './dashscope-client.ts';
import type { DashscopeTaskParameters } from './dashscope-protocol.ts';
import type { Recognizer } from './recognizer.ts';
import {
  createResendingRecognizer,
  type ResendingRecognizerOptions,
} from './resending-recognizer.ts';

/** Audio per packet: 100 ms, the pace the service's documentation sends real-time audio at. */
export const DASHSCOPE_PACKET_MS = 100;

/**
 * The task parameters of a class: 16 kHz PCM, and the heartbeat that keeps the task open through
 * a silence (without it the service closes after 60 s of silent audio).
 */
export const DASHSCOPE_TASK_PARAMETERS: DashscopeTaskParameters = {
  format: 'pcm',
  sample_rate: RECOGNIZER_SAMPLE_RATE,
  heartbeat: true,
};

/** Options of {@link createDashscopeRecognizer}: the resending recognizer's, but the service. */
export type DashscopeRecognizerOptions = Omit<ResendingRecognizerOptions, 'service' | 'packetMs'>;

/** The error start_monitor answers when the first task cannot start. */
function startError(error: unknown, settings: ResolvedSettings): ServerError {
  const detail = (error as Error)?.message ?? String(error);
  if (isDashscopeError(error)) {
    const keyRefused =
      error.code === 'DASHSCOPE_KEY_REFUSED' ||
      /^(InvalidApiKey|AccessDenied|Arrearage)/i.test(error.serviceCode ?? '');
    if (keyRefused) {
      return new ServerError(
        'RECOGNIZER_UNAVAILABLE',
        localized(
          `DashScope 拒绝了 API 密钥（${detail}）：请检查 DASHSCOPE_API_KEY（阿里云百炼控制台的 API Key，北京和新加坡地域的密钥不通用）。`,
          `DashScope refused the API key (${detail}): check DASHSCOPE_API_KEY (the API key of the Model Studio console; Beijing and Singapore keys differ).`,
        ),
        { field: 'DASHSCOPE_API_KEY' },
      );
    }
    if (error.code === 'DASHSCOPE_TASK_FAILED' || error.code === 'DASHSCOPE_HANDSHAKE_FAILED') {
      return new ServerError(
        'RECOGNIZER_FAILED',
        localized(
          `DashScope 拒绝了识别任务（${detail}）：请检查 DASHSCOPE_ASR_MODEL（${settings.dashscopeAsrModel}）和 DASHSCOPE_WS_URL。`,
          `DashScope refused the recognition task (${detail}): check DASHSCOPE_ASR_MODEL (${settings.dashscopeAsrModel}) and DASHSCOPE_WS_URL.`,
        ),
        { field: 'DASHSCOPE_ASR_MODEL' },
      );
    }
  }
  return new ServerError(
    'RECOGNIZER_UNAVAILABLE',
    localized(
      `无法连接 ${settings.dashscopeWsUrl} 上的 DashScope：${detail}。请检查网络和 DASHSCOPE_WS_URL。`,
      `Cannot reach DashScope at ${settings.dashscopeWsUrl}: ${detail}. Check the network and DASHSCOPE_WS_URL.`,
    ),
    { field: 'DASHSCOPE_WS_URL' },
  );
}

/**
 * The DashScope recognizer of one class.
 *
 * @example
 * const recognizer = createDashscopeRecognizer({ context });
 * await recognizer.start(); // rejects when DashScope cannot be reached or refuses the key
 */
export function createDashscopeRecognizer(options: DashscopeRecognizerOptions): Recognizer {
  const settings = options.context.settings;
  return createResendingRecognizer({
    ...options,
    packetMs: DASHSCOPE_PACKET_MS,
    service: {
      name: 'DashScope',
      codePrefix: 'DASHSCOPE_ASR',
      async connect(events) {
        const task = await openDashscopeTask({
          url: settings.dashscopeWsUrl,
          apiKey: settings.dashscopeApiKey,
          model: settings.dashscopeAsrModel,
          parameters: DASHSCOPE_TASK_PARAMETERS,
          onSentence: (sentence) => {
            if (sentence.sentenceEnd) {
              events.final(sentence.text, sentence.endTime ?? sentence.beginTime);
            } else {
              events.partial(sentence.text);
            }
          },
          onEnd: (error) => events.end(error),
        });
        return {
          sendAudio: (pcm) => task.sendAudio(pcm),
          finish: (timeoutMs) => task.finish(timeoutMs),
          close: () => task.close(),
          details: { taskId: task.taskId, model: settings.dashscopeAsrModel },
        };
      },
      describe(failure) {
        const message = (failure as Error)?.message ?? String(failure);
        if (!isDashscopeError(failure))
          return { retryable: true, code: 'DASHSCOPE_ASR_FAILED', message };
        return {
          retryable: failure.retryable,
          code: failure.serviceCode ? `DASHSCOPE_ASR_${failure.serviceCode}` : failure.code,
          message,
        };
      },
      startError: (failure) => startError(failure, settings),
    },
  });
}
