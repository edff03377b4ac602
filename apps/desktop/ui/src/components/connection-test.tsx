// "测试连接 / Test connection" for the AI service or an online recognizer: one small real request
// by the backend with the values in the form (saved or not), and what happened in words — it
// works, or what is wrong and what to do — with the raw cause folded behind 详情 / Details.
import type { RestAnswer, RestBody } from '@class-assistant/server/rest-contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { t } from '../i18n.ts';
import { ErrorBox, TechnicalDetails } from './error-box.tsx';

type Target = RestBody<'POST /api/settings/test_connection'>['target'];

const TARGETS: readonly string[] = ['llm', 'stream', 'dashscope', 'cloud'] satisfies Target[];

/** True for what has a connection test: the AI service and the online recognizers. */
export function hasConnectionTest(target: string): target is Target {
  return TARGETS.includes(target);
}

/**
 * The button and its answer. `fields`: the form's values, saved or not (masked secrets stand for
 * the stored ones; the backend reads the target's keys only).
 */
export function ConnectionTest({
  target,
  fields,
}: {
  target: Target;
  fields: Record<string, string>;
}) {
  const [status, setStatus] = useState<
    RestAnswer<'POST /api/settings/test_connection'> | { error: unknown } | 'busy' | null
  >(null);
  const running = useRef<AbortController>(undefined);
  useEffect(() => () => running.current?.abort(), []);

  const run = async () => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setStatus('busy');
    let next: typeof status;
    try {
      // The backend gives the service about 20 s at most.
      next = await call('POST /api/settings/test_connection', {
        body: { target, fields },
        signal: controller.signal,
        timeoutMs: 30_000,
      });
    } catch (error) {
      next = { error };
    }
    if (!controller.signal.aborted) setStatus(next);
  };

  return (
    <div class="connection-test" data-target={target}>
      <button
        type="button"
        class="button small"
        disabled={status === 'busy'}
        aria-busy={status === 'busy'}
        onClick={run}
      >
        {t('connectionTest')}
      </button>
      <div class="connection-test-answer" aria-live="polite">
        {status === 'busy' ? <p class="notice busy">{t('connectionTesting')}</p> : null}
        {status && typeof status === 'object' && 'result' in status ? (
          <div
            class={`notice ${status.ok ? 'ok' : 'problem'}`}
            role="status"
            data-result={status.result}
          >
            <p>{status.message}</p>
            <TechnicalDetails text={status.technical} />
          </div>
        ) : null}
        {status && typeof status === 'object' && 'error' in status ? (
          <ErrorBox error={status.error} />
        ) : null}
      </div>
    </div>
  );
}
