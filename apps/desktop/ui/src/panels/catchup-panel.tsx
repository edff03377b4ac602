// Catch-up: where is the teacher now? A Markdown summary of the last ten minutes streams in;
// follow-up questions continue from it.
import { streamAnswer } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { AnswerSources } from '../views/answer-sources.tsx';
import { Chat, type FollowUp } from '../views/chat.tsx';
import { OfflineNotice, useOffline } from '../views/offline-notice.tsx';
import { useStreamedAnswer } from '../views/streamed-answer.ts';
import type { PanelProps } from './registry.tsx';

/** The catch-up panel; it asks each time `app.requests.catchup` grows. */
export function CatchupPanel({ active }: PanelProps) {
  const app = useApp();
  const offline = useOffline();
  const [answer, run] = useStreamedAnswer('POST /api/catchup/stream', app.requests.catchup);
  const { raw, final } = answer;
  const success = final?.status === 'success';
  const shown = answer.serial > 0 && (answer.error === undefined || raw !== '');
  const followUp: FollowUp = async (question, history, onDelta, signal, onToolCall) => {
    const reply = await streamAnswer(
      'POST /api/catchup_chat/stream',
      { body: { summary: success ? final.summary : '', question, history } },
      { onDelta, signal, onToolCall },
    );
    return reply.answer;
  };
  let resultClass = 'catchup-summary markdown';
  if (answer.running) resultClass += ' streaming';
  if (final && !success) resultClass += ' notice';
  if (offline && shown) resultClass += ' stale';
  return (
    <section class="panel-body catchup-panel" hidden={!active}>
      <p class="intro">{t('catchupIntro')}</p>
      <OfflineNotice action={t('catchup')} stale={shown} />
      <button
        type="button"
        class="button primary big"
        disabled={answer.running || offline}
        onClick={run}
      >
        <Icon name="catchup" />
        {t('catchupRun')}
      </button>
      <div class="panel-status">
        {answer.error !== undefined ? <ErrorBox error={answer.error} /> : null}
      </div>
      {/* The span it covers, above the summary: "基于 18:37–18:47 的字幕". */}
      <AnswerSources sources={success ? final.sources : undefined} />
      <div
        class={resultClass}
        hidden={!shown}
        dangerouslySetInnerHTML={{ __html: renderMarkdown(final ? final.summary : raw) }}
      />
      <Chat key={answer.serial} followUp={followUp} enabled={success} disabled={offline} />
    </section>
  );
}
