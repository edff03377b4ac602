// A failure in words, the way out as a button, and the technical cause behind "详情".
import type { ComponentChildren } from 'preact';
import { useApp } from '../context.ts';
import { describeError } from '../errors.ts';
import { t } from '../i18n.ts';

/** The technical cause of a failure, folded away (`<details>`): there for whoever asks. */
export function TechnicalDetails({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <details class="technical-details">
      <summary>{t('details')}</summary>
      <code class="technical-text">{text}</code>
    </details>
  );
}

/** An error box for any error the API helpers throw, with its way out. */
export function ErrorBox({
  error,
  onDemoMode,
  children,
}: {
  error: unknown;
  /** After the demo mode was set from the box. */
  onDemoMode?: () => void;
  /** More ways out, after the box's own. */
  children?: ComponentChildren;
}) {
  const app = useApp();
  const { lang, monitor } = app.store.get();
  const description = describeError(
    error,
    lang,
    monitor.state === 'running' || monitor.state === 'paused',
  );
  const demo = async () => {
    if (await app.useDemoMode()) onDemoMode?.();
  };
  const hasActions = description.action !== undefined || children !== undefined;
  return (
    <div class="error-box" role="alert">
      <p class="error-message">{description.message}</p>
      {description.detail ? <p class="error-detail">{description.detail}</p> : null}
      <TechnicalDetails text={description.technical} />
      {hasActions ? (
        <div class="error-actions">
          {description.action === 'settings' ? (
            <button type="button" class="button" onClick={() => app.openPanel('settings')}>
              {t('errorOpenSettings')}
            </button>
          ) : null}
          {description.action === 'demo' ? (
            <button type="button" class="button primary" onClick={demo}>
              {t('useDemoMode')}
            </button>
          ) : null}
          {children}
        </div>
      ) : null}
    </div>
  );
}
