// "测试连接 / Test connection" for the AI service or an online recognizer: one small real request
// by the backend with the values in the form (saved or not), and what happened in words — it
// works, or what is wrong and what to do — with the raw cause folded behind 详情 / Details.
import type { RestAnswer, RestBody } from '@class-assistant/server/rest-contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorBox, TechnicalDetails } from './error-box.tsx';

type Target = RestBody<'POST /api/settings/test_connection'>['target'];
type Found = RestAnswer<'POST /api/settings/test_connection'>;
type Fields = Record<string, string>;

/** The keys each target's test reads (the cloud recognizer falls back to the LLM's address and key). */
const KEYS_OF: Record<Target, RegExp> = {
  llm: /^LLM_/,
  stream: /^STREAM_ASR_/,
  dashscope: /^DASHSCOPE_/,
  cloud: /^(CLOUD_ASR_|LLM_(BASE_URL|API_KEY)$)/,
};

/** True for what has a connection test: the AI service and the online recognizers. */
export function hasConnectionTest(target: string): target is Target {
  return Object.hasOwn(KEYS_OF, target);
}

/** What the button has to show. */
type Status =
  | { kind: 'none' }
  | { kind: 'busy' }
  | { kind: 'found'; found: Found }
  | { kind: 'failed'; error: unknown };

/**
 * The button and its answer. `fields`: the form's values (masked secrets stand for the stored
 * ones; only the target's keys are sent), or a function reading them when the button is pressed.
 */
export function ConnectionTest({
  target,
  fields,
}: {
  target: Target;
  fields?: Fields | (() => Fields);
}) {
  const [status, setStatus] = useState<Status>({ kind: 'none' });
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  const run = async () => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setStatus({ kind: 'busy' });
    try {
      const form = typeof fields === 'function' ? fields() : (fields ?? {});
      const values = Object.fromEntries(
        Object.entries(form)
          .filter(([key]) => KEYS_OF[target].test(key))
          .map(([key, value]) => [key, value.trim()]),
      );
      const found = await call('POST /api/settings/test_connection', {
        body: { target, fields: values },
        signal: controller.signal,
        // The backend gives the service about 20 s at most.
        timeoutMs: 30_000,
      });
      if (!controller.signal.aborted) setStatus({ kind: 'found', found });
    } catch (error) {
      if (!controller.signal.aborted) setStatus({ kind: 'failed', error });
    }
  };

  const busy = status.kind === 'busy';
  return (
    <div class="connection-test" data-target={target}>
      <button
        type="button"
        class="button small connection-test-button"
        disabled={busy}
        aria-busy={busy}
        onClick={run}
      >
        {t('connectionTest')}
      </button>
      <div class="connection-test-answer" aria-live="polite">
        {busy ? <p class="notice busy">{t('connectionTesting')}</p> : null}
        {status.kind === 'found' ? (
          <div
            class={`notice ${status.found.ok ? 'ok' : 'problem'}`}
            role="status"
            data-result={status.found.result}
          >
            <p>{status.found.message}</p>
            <TechnicalDetails text={status.found.technical} />
          </div>
        ) : null}
        {status.kind === 'failed' ? <ErrorBox error={status.error} /> : null}
      </div>
    </div>
  );
}
