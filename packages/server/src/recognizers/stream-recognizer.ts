/**
 * ASR_MODE=stream (the original product's seed-asr): the online streaming service through
 * asr-protocol's client, on the optimised bidirectional endpoint by default, with the request
 * settings in STREAM_REQUEST_SETTINGS. Each definite utterance is a final sentence; reconnection
 * and resending are the resending recognizer's (resending-recognizer.ts).
 */
import {
  type AsrEndpoint,
  type AsrRequest,
  buildHotwordsContext,
  connectAsrStream,
  describeServiceCode,
  isAsrEndpoint,
  isAsrProtocolError,
  validateAsrRequest,
} from '@class-assistant/asr-protocol';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { SERVER_VERSION } from '../version.ts';
import { contextHotwords, fitHotwords, hotwordBudget } from './hotwords.ts';
import type { Recognizer } from './recognizer.ts';
import {
  createResendingRecognizer,
  DEFAULT_RESENDING_OPTIONS,
  type ResendingRecognizerOptions,
} from './resending-recognizer.ts';

/**
 * The request settings of a class: utterances with their times, one result per sentence, 800 ms
 * of silence ends a sentence, at least 1 s of speech before the end detection applies.
 */
export const STREAM_REQUEST_SETTINGS = {
  show_utterances: true,
  result_type: 'single',
  end_window_size: 800,
  force_to_speech_time: 1000,
} as const;

/** Audio per packet: 200 ms, the protocol's optimum for bidirectional streaming. */
export const STREAM_PACKET_MS = 200;

/** Options of {@link createStreamRecognizer}: the resending recognizer's, but the service. */
export type StreamRecognizerOptions = Omit<ResendingRecognizerOptions, 'service' | 'packetMs'>;

/** Builds the full client request of a class: 16 kHz mono PCM, the request settings, hot words. */
export function buildStreamRequest(endpoint: AsrEndpoint, hotwords: readonly string[]): AsrRequest {
  const words = fitHotwords(hotwords, hotwordBudget(endpoint));
  const request = {
    user: { uid: 'class-assistant', platform: process.platform, app_version: SERVER_VERSION },
    audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: 1 },
    request: {
      model_name: 'bigmodel',
      enable_itn: true,
      enable_punc: true,
      ...STREAM_REQUEST_SETTINGS,
      ...(words.length > 0 ? { corpus: { context: buildHotwordsContext(words) } } : {}),
    },
  };
  return validateAsrRequest(request, endpoint);
}

function describeFailure(error: unknown): string {
  if (isAsrProtocolError(error)) {
    if (error.serviceCode !== undefined) {
      return `service error ${error.serviceCode} (${describeServiceCode(error.serviceCode)}): ${error.serviceMessage ?? error.message}${error.logId ? ` [log id ${error.logId}]` : ''}`;
    }
    return `${error.message}${error.logId ? ` [log id ${error.logId}]` : ''}`;
  }
  return (error as Error)?.message ?? String(error);
}

/** The error start_monitor answers when the first connection fails. */
function startError(error: unknown, settings: ResolvedSettings): ServerError {
  const detail = describeFailure(error);
  if (isAsrProtocolError(error) && error.code === 'ASR_HANDSHAKE_FAILED') {
    const auth = error.status === 401 || error.status === 403;
    return new ServerError(
      'RECOGNIZER_UNAVAILABLE',
      auth
        ? localized(
            `流式识别服务拒绝了密钥（HTTP ${error.status}）：请检查 STREAM_ASR_APP_KEY、STREAM_ASR_ACCESS_KEY 和 STREAM_ASR_RESOURCE_ID（${settings.streamAsrResourceId}）。${detail}`,
            `The streaming service refused the keys (HTTP ${error.status}): check STREAM_ASR_APP_KEY, STREAM_ASR_ACCESS_KEY and STREAM_ASR_RESOURCE_ID (${settings.streamAsrResourceId}). ${detail}`,
          )
        : localized(
            `流式识别服务拒绝了连接：${detail}`,
            `The streaming service refused the connection: ${detail}`,
          ),
      { field: auth ? 'STREAM_ASR_ACCESS_KEY' : 'STREAM_ASR_URL' },
    );
  }
  if (isAsrProtocolError(error) && error.serviceCode !== undefined) {
    return new ServerError(
      'RECOGNIZER_FAILED',
      localized(
        `流式识别服务拒绝了这节课的识别请求：${detail}`,
        `The streaming service refused the class: ${detail}`,
      ),
      { field: 'ASR_MODE' },
    );
  }
  return new ServerError(
    'RECOGNIZER_UNAVAILABLE',
    localized(
      `无法连接 ${settings.streamAsrUrl} 上的流式识别服务：${detail}。请检查网络和 STREAM_ASR_URL。`,
      `Cannot reach the streaming service at ${settings.streamAsrUrl}: ${detail}. Check the network and STREAM_ASR_URL.`,
    ),
    { field: 'STREAM_ASR_URL' },
  );
}

/**
 * The streaming recognizer of one class.
 *
 * @example
 * const recognizer = createStreamRecognizer({ context });
 * await recognizer.start(); // rejects when the service cannot be reached or refuses the keys
 */
export function createStreamRecognizer(options: StreamRecognizerOptions): Recognizer {
  const { context } = options;
  const settings = context.settings;
  const endpoint: AsrEndpoint = isAsrEndpoint(settings.streamAsrEndpoint)
    ? settings.streamAsrEndpoint
    : 'bigmodel_async';
  const finishTimeoutMs = options.finishTimeoutMs ?? DEFAULT_RESENDING_OPTIONS.finishTimeoutMs;
  let request: AsrRequest | undefined;
  return createResendingRecognizer({
    ...options,
    packetMs: STREAM_PACKET_MS,
    service: {
      name: 'the streaming service',
      codePrefix: 'STREAM_ASR',
      async prepare() {
        const hotwords = settings.streamAsrHotwords ? await contextHotwords(context) : [];
        try {
          request = buildStreamRequest(endpoint, hotwords);
        } catch (error) {
          throw new ServerError(
            'RECOGNIZER_FAILED',
            `Invalid streaming request: ${(error as Error).message}`,
            { field: 'ASR_MODE' },
          );
        }
        const words = fitHotwords(hotwords, hotwordBudget(endpoint));
        context.logger.info({ endpoint, hotwords: words }, 'streaming recognition: hot words');
      },
      async connect(events) {
        const stream = await connectAsrStream({
          url: settings.streamAsrUrl,
          endpoint,
          appKey: settings.streamAsrAppKey,
          accessKey: settings.streamAsrAccessKey,
          resourceId: settings.streamAsrResourceId,
          request: request!,
          finishTimeoutMs,
        });
        stream.on('utterance-complete', ({ utterance }) =>
          events.final(utterance.text, utterance.end_time),
        );
        stream.on('partial-update', ({ text }) => events.partial(text));
        stream.on('end', ({ error }) => events.end(error));
        return {
          sendAudio: (pcm) => stream.sendAudio(pcm),
          finish: async (timeoutMs) => {
            await stream.finish({ timeoutMs });
          },
          close: () => stream.close(),
          details: { logId: stream.logId, connectId: stream.connectId },
        };
      },
      describe(failure) {
        // Anything but the protocol's own verdict (a network error) is worth another try.
        return {
          retryable: !isAsrProtocolError(failure) || failure.retryable,
          code:
            isAsrProtocolError(failure) && failure.serviceCode !== undefined
              ? `STREAM_ASR_${failure.serviceCode}`
              : ((failure as { code?: string })?.code ?? 'STREAM_ASR_FAILED'),
          message: describeFailure(failure),
        };
      },
      startError: (failure) => startError(failure, settings),
    },
  });
}
