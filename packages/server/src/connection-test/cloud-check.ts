/**
 * The cloud recognizer's connection test: half a second of silence sent to
 * `POST {CLOUD_ASR_BASE_URL}/audio/transcriptions` as a class sends a phrase — the one request
 * that proves the address, the key and the transcription model together.
 */
import { encodeWav } from '@class-assistant/asr-protocol';
import { RECOGNIZER_SAMPLE_RATE } from '../audio/pcm.ts';
import { localized } from '../language.ts';
import { defaultCloudAsrClientFactory } from '../recognizers/cloud-recognizer.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { type ConnectionResult, incompleteResult } from './connection-result.ts';
import { TEST_TIMEOUT_MS } from './llm-check.ts';
import { type OpenAIRequestFacts, openAIFailure } from './openai-failure.ts';

const KEYS = { address: 'CLOUD_ASR_BASE_URL', key: 'CLOUD_ASR_API_KEY', model: 'CLOUD_ASR_MODEL' };

/** Half a second of 16 kHz mono 16-bit silence. */
const SILENCE_BYTES = RECOGNIZER_SAMPLE_RATE;

/** Tests the cloud recognizer with these settings (one request, no retry). */
export async function checkCloudAsr(settings: ResolvedSettings): Promise<ConnectionResult> {
  const missing = [
    settings.cloudAsrBaseUrl === '' ? KEYS.address : '',
    settings.cloudAsrApiKey === '' ? KEYS.key : '',
    settings.cloudAsrModel === '' ? KEYS.model : '',
  ].filter((key) => key !== '');
  if (missing.length > 0) return incompleteResult(missing);
  const timeoutMs = Math.min(settings.llmTimeoutMs, TEST_TIMEOUT_MS);
  const facts: OpenAIRequestFacts = {
    target: 'cloud',
    keys: KEYS,
    address: settings.cloudAsrBaseUrl,
    model: settings.cloudAsrModel,
    timeoutMs,
  };
  const sdk = await import('openai');
  const client = await defaultCloudAsrClientFactory(settings);
  const wav = encodeWav(new Uint8Array(SILENCE_BYTES), {
    sampleRate: RECOGNIZER_SAMPLE_RATE,
    channels: 1,
  });
  const started = Date.now();
  try {
    const { response } = await client.audio.transcriptions
      .create(
        {
          file: await sdk.toFile(wav, 'connection-test.wav', { type: 'audio/wav' }),
          model: settings.cloudAsrModel,
          response_format: 'json',
          ...(settings.cloudAsrLanguage ? { language: settings.cloudAsrLanguage } : {}),
        },
        { maxRetries: 0, timeout: timeoutMs },
      )
      .withResponse();
    const ms = Date.now() - started;
    return {
      result: 'ok',
      message: localized(
        `连接正常：${settings.cloudAsrBaseUrl} 接受了密钥，用模型 ${settings.cloudAsrModel} 转写了一小段静音（${ms} 毫秒）。`,
        `It works: ${settings.cloudAsrBaseUrl} accepted the key and transcribed a moment of silence with the model ${settings.cloudAsrModel} (${ms} ms).`,
      ),
      technical: `POST ${settings.cloudAsrBaseUrl.replace(/\/$/, '')}/audio/transcriptions (0.5 s of silence) → HTTP ${response.status}, ${ms} ms`,
    };
  } catch (error) {
    return openAIFailure(error, sdk, facts);
  }
}
