/**
 * Runs the connection test of a target with given settings: one small real request to the LLM
 * or to an online recognizer's service, its outcome in words. Secrets never leave in the answer:
 * every secret of the settings is masked in the message and the technical text. The recognizer
 * checks (and the protocol clients they use) load on the first test of their target.
 */
import type { LlmClientFactory } from '../llm/llm-client.ts';
import { maskSecret, maskSecretsInText } from '../secret-rules.ts';
import { SETTING_DEFINITIONS } from '../settings/settings-schema.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { ConnectionResult, ConnectionTarget } from './connection-result.ts';
import { checkLlm } from './llm-check.ts';

/**
 * Tests `target` with `settings` (one request, no retry; at most about 20 s).
 *
 * @example
 * const found = await runConnectionTest('llm', settings.preview({ LLM_API_KEY: 'sk-…' }));
 * found.result; // 'ok', 'wrong_key', 'wrong_address', 'model_unknown', …
 */
export async function runConnectionTest(
  target: ConnectionTarget,
  settings: ResolvedSettings,
  options: { llmClientFactory?: LlmClientFactory | undefined } = {},
): Promise<ConnectionResult> {
  const found =
    target === 'llm'
      ? await checkLlm(settings, options.llmClientFactory)
      : target === 'stream'
        ? await (await import('./stream-check.ts')).checkStreamAsr(settings)
        : target === 'dashscope'
          ? await (await import('./dashscope-check.ts')).checkDashscopeAsr(settings)
          : await (await import('./cloud-check.ts')).checkCloudAsr(settings);
  const secrets = SETTING_DEFINITIONS.filter((definition) => definition.secret)
    .map((definition) => settings.values[definition.key] ?? '')
    .filter((value) => value.length >= 3)
    // The longest first: a key that holds another is masked whole.
    .sort((a, b) => b.length - a.length);
  const hide = (text: string) =>
    maskSecretsInText(
      secrets.reduce((masked, secret) => masked.replaceAll(secret, maskSecret(secret)), text),
    );
  return {
    ...found,
    message: { zh: hide(found.message.zh), en: hide(found.message.en) },
    technical: hide(found.technical),
  };
}
