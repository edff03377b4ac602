/**
 * The streaming recognizer's connection test: the session a class opens (the same endpoint,
 * headers and request), then 200 ms of silence as the last packet, so that the service answers
 * with its final result — the proof that it accepted the keys, the resource and the audio —
 * and the connection is closed.
 */
import {
  type AsrEndpoint,
  connectAsrStream,
  describeServiceCode,
  isAsrEndpoint,
  isAsrProtocolError,
} from '@class-assistant/asr-protocol';
import { localized } from '../language.ts';
import { buildStreamRequest, STREAM_PACKET_MS } from '../recognizers/stream-recognizer.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import {
  addressProblemOf,
  type ConnectionResult,
  incompleteResult,
  problemWords,
  technicalText,
} from './connection-result.ts';

const KEYS = {
  address: 'STREAM_ASR_URL',
  key: 'STREAM_ASR_ACCESS_KEY',
  model: 'STREAM_ASR_RESOURCE_ID',
};

/** Longest wait for the handshake, and then for the final result. */
const STEP_TIMEOUT_MS = 8000;

/** Tests the streaming service with these settings (one session, no retry). */
export async function checkStreamAsr(settings: ResolvedSettings): Promise<ConnectionResult> {
  const missing = [
    settings.streamAsrAppKey === '' ? 'STREAM_ASR_APP_KEY' : '',
    settings.streamAsrAccessKey === '' ? KEYS.key : '',
    settings.streamAsrResourceId === '' ? KEYS.model : '',
  ].filter((key) => key !== '');
  if (missing.length > 0) return incompleteResult(missing);
  const endpoint: AsrEndpoint = isAsrEndpoint(settings.streamAsrEndpoint)
    ? settings.streamAsrEndpoint
    : 'bigmodel_async';
  const facts = {
    keys: KEYS,
    address: settings.streamAsrUrl,
    model: settings.streamAsrResourceId,
  };
  const started = Date.now();
  let stream: Awaited<ReturnType<typeof connectAsrStream>> | undefined;
  try {
    stream = await connectAsrStream({
      url: settings.streamAsrUrl,
      endpoint,
      appKey: settings.streamAsrAppKey,
      accessKey: settings.streamAsrAccessKey,
      resourceId: settings.streamAsrResourceId,
      request: buildStreamRequest(endpoint, []),
      handshakeTimeoutMs: STEP_TIMEOUT_MS,
      finishTimeoutMs: STEP_TIMEOUT_MS,
    });
    // 16 kHz mono 16-bit: 32 bytes a millisecond.
    await stream.sendAudio(new Uint8Array(STREAM_PACKET_MS * 32));
    const result = await stream.finish({ timeoutMs: STEP_TIMEOUT_MS });
    const ms = Date.now() - started;
    return {
      result: 'ok',
      message: localized(
        `连接正常：流式识别服务接受了密钥和资源 ${settings.streamAsrResourceId}，并识别了一小段静音（${ms} 毫秒）。`,
        `It works: the streaming service accepted the keys and the resource ${settings.streamAsrResourceId} and recognised a moment of silence (${ms} ms).`,
      ),
      technical: `${settings.streamAsrUrl} (${endpoint}): final result after ${STREAM_PACKET_MS} ms of silence, ${ms} ms${result.logId ? `, log id ${result.logId}` : ''}`,
    };
  } catch (error) {
    return streamFailure(error, facts);
  } finally {
    stream?.close();
  }
}

/** The connection result of a failed session. */
function streamFailure(
  error: unknown,
  facts: { keys: typeof KEYS; address: string; model: string },
): ConnectionResult {
  const technical = isAsrProtocolError(error)
    ? [
        technicalText(error),
        error.serviceCode !== undefined
          ? `service code ${error.serviceCode} (${describeServiceCode(error.serviceCode)})`
          : '',
        error.body ? `body: ${error.body.slice(0, 300)}` : '',
        error.logId ? `log id ${error.logId}` : '',
      ]
        .filter((part) => part !== '')
        .join('; ')
    : technicalText(error);
  const words = (
    problem: Parameters<typeof problemWords>[1],
    extra: Partial<Parameters<typeof problemWords>[2]> = {},
  ) => problemWords('stream', problem, { ...facts, ...extra });
  const code = isAsrProtocolError(error) ? error.code : '';
  if (code === 'ASR_HANDSHAKE_TIMEOUT' || code === 'ASR_FINISH_TIMEOUT') {
    return {
      result: 'timeout',
      message: words('timeout', { seconds: STEP_TIMEOUT_MS / 1000 }),
      technical,
      field: KEYS.address,
    };
  }
  if (code === 'ASR_HANDSHAKE_FAILED' && isAsrProtocolError(error)) {
    const status = error.status;
    if (status === 403 && /resource/i.test(error.body ?? '')) {
      return {
        result: 'model_unknown',
        message: words('model_unknown', { status }),
        technical,
        field: KEYS.model,
      };
    }
    if (status === 401 || status === 403) {
      return {
        result: 'wrong_key',
        message: words('wrong_key', { status }),
        technical,
        field: KEYS.key,
      };
    }
    if (status === 429) {
      return { result: 'rate_limited', message: words('rate_limited', { status }), technical };
    }
    if (status !== undefined && status < 500) {
      // No such endpoint, or no WebSocket service at all: not the streaming service's address.
      return {
        result: 'wrong_address',
        message: words('wrong_address', { status, why: 'not-api' }),
        technical,
        field: KEYS.address,
      };
    }
    return { result: 'service_error', message: words('service_error', { status }), technical };
  }
  if (
    code === 'ASR_CONNECTION_FAILED' ||
    code === 'ASR_INVALID_OPTIONS' ||
    !isAsrProtocolError(error)
  ) {
    return {
      result: 'wrong_address',
      message: words('wrong_address', { why: addressProblemOf(error) }),
      technical,
      field: KEYS.address,
    };
  }
  return { result: 'service_error', message: words('service_error'), technical };
}
