/**
 * DashScope's connection test: the task a class opens (`run-task` with the class's parameters
 * and model), closed as soon as the service answers `task-started` — its proof that the key and
 * the model are accepted. No audio is sent.
 */
import { localized } from '../language.ts';
import { isDashscopeError, openDashscopeTask } from '../recognizers/dashscope-client.ts';
import { DASHSCOPE_TASK_PARAMETERS } from '../recognizers/dashscope-recognizer.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import {
  addressProblemOf,
  type ConnectionResult,
  incompleteResult,
  problemWords,
  technicalText,
} from './connection-result.ts';

const KEYS = {
  address: 'DASHSCOPE_WS_URL',
  key: 'DASHSCOPE_API_KEY',
  model: 'DASHSCOPE_ASR_MODEL',
};

/** Longest wait for the handshake and `task-started`. */
const START_TIMEOUT_MS = 10_000;

/** Tests DashScope with these settings (one task, no retry). */
export async function checkDashscopeAsr(settings: ResolvedSettings): Promise<ConnectionResult> {
  if (settings.dashscopeApiKey === '') return incompleteResult([KEYS.key]);
  const facts = { keys: KEYS, address: settings.dashscopeWsUrl, model: settings.dashscopeAsrModel };
  const started = Date.now();
  try {
    const task = await openDashscopeTask({
      url: settings.dashscopeWsUrl,
      apiKey: settings.dashscopeApiKey,
      model: settings.dashscopeAsrModel,
      parameters: DASHSCOPE_TASK_PARAMETERS,
      onSentence: () => {},
      onEnd: () => {},
      startTimeoutMs: START_TIMEOUT_MS,
    });
    task.close();
    const ms = Date.now() - started;
    return {
      result: 'ok',
      message: localized(
        `连接正常：DashScope 接受了 API 密钥，并用模型 ${settings.dashscopeAsrModel} 开始了识别任务（${ms} 毫秒）。`,
        `It works: DashScope accepted the API key and started a recognition task with the model ${settings.dashscopeAsrModel} (${ms} ms).`,
      ),
      technical: `${settings.dashscopeWsUrl}: task-started for task ${task.taskId}, ${ms} ms`,
    };
  } catch (error) {
    const technical = technicalText(error);
    const words = (
      problem: Parameters<typeof problemWords>[1],
      extra: Partial<Parameters<typeof problemWords>[2]> = {},
    ) => problemWords('dashscope', problem, { ...facts, ...extra });
    if (!isDashscopeError(error)) {
      return { result: 'service_error', message: words('service_error'), technical };
    }
    const service = error.serviceCode ?? '';
    if (error.code === 'DASHSCOPE_KEY_REFUSED' || /^(InvalidApiKey|AccessDenied)/i.test(service)) {
      return {
        result: 'wrong_key',
        message: words('wrong_key', { status: error.status }),
        technical,
        field: KEYS.key,
      };
    }
    if (
      /^(ModelNotFound|Model\.)/i.test(service) ||
      (/model/i.test(error.message) && /not.?(found|exist)|unknown|invalid/i.test(error.message))
    ) {
      return {
        result: 'model_unknown',
        message: words('model_unknown'),
        technical,
        field: KEYS.model,
      };
    }
    if (error.code === 'DASHSCOPE_TIMEOUT') {
      return {
        result: 'timeout',
        message: words('timeout', { seconds: START_TIMEOUT_MS / 1000 }),
        technical,
        field: KEYS.address,
      };
    }
    if (error.status === 429 || /^Throttling/i.test(service)) {
      return { result: 'rate_limited', message: words('rate_limited'), technical };
    }
    if (error.code === 'DASHSCOPE_CONNECTION_FAILED') {
      return {
        result: 'wrong_address',
        message: words('wrong_address', { why: addressProblemOf(error) }),
        technical,
        field: KEYS.address,
      };
    }
    if (
      error.code === 'DASHSCOPE_HANDSHAKE_FAILED' &&
      error.status !== undefined &&
      error.status < 500
    ) {
      return {
        result: 'wrong_address',
        message: words('wrong_address', { status: error.status, why: 'not-api' }),
        technical,
        field: KEYS.address,
      };
    }
    return {
      result: 'service_error',
      message: words('service_error', { status: error.status }),
      technical,
    };
  }
}
