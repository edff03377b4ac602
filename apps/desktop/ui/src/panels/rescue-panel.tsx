// Rescue: what did the teacher just ask, and what can I say? The answer streams in field by
// field (the model writes a JSON object); follow-up questions continue from it.
import { streamAnswer } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { looksLikeJson, partialJsonStrings } from '../partial-json.ts';
import { AnswerSources } from '../views/answer-sources.tsx';
import { Chat, type FollowUp } from '../views/chat.tsx';
import { OfflineNotice, useOffline } from '../views/offline-notice.tsx';
import { useStreamedAnswer } from '../views/streamed-answer.ts';
import type { PanelProps } from './registry.tsx';

/** The rescue panel; it asks each time `app.requests.rescue` grows. */
export function RescuePanel({ active }: PanelProps) {
  const app = useApp();
  const offline = useOffline();
  const [answer, run] = useStreamedAnswer('POST /api/emergency_rescue/stream', app.requests.rescue);
  const { raw, final } = answer;
  const fields: Partial<Record<'question' | 'context' | 'answer', string>> = final
    ? final
    : looksLikeJson(raw)
      ? partialJsonStrings(raw, ['question', 'context', 'answer'])
      : { answer: raw };
  const warning = final?.status === 'warning';
  const answered = final !== undefined && !warning;
  const shown = answer.serial > 0 && (answer.error === undefined || raw !== '');
  const followUp: FollowUp = async (followup, history, onDelta, signal, onToolCall) => {
    const base = final ?? { context: '', question: '', answer: '' };
    const reply = await streamAnswer(
      'POST /api/emergency_rescue_chat/stream',
      {
        body: {
          context: base.context,
          question: base.question,
          answer: base.answer,
          followup,
          history,
        },
      },
      { onDelta, signal, onToolCall },
    );
    return reply.answer;
  };
  const resultClass = `rescue-result${answer.running ? ' streaming' : ''}${offline && shown ? ' stale' : ''}`;
  return (
    <section class="panel-body rescue-panel" hidden={!active}>
      <p class="intro">{t('rescueIntro')}</p>
      <OfflineNotice action={t('rescue')} stale={shown} />
      <button
        type="button"
        class="button primary big"
        disabled={answer.running || offline}
        onClick={run}
      >
        <Icon name="rescue" />
        {t('rescueRun')}
      </button>
      <div class="panel-status">
        {answer.error !== undefined ? <ErrorBox error={answer.error} /> : null}
        {warning ? <p class="notice">{t('rescueNoTranscript')}</p> : null}
      </div>
      <div class={resultClass} hidden={!shown}>
        <h4>{t('rescueQuestion')}</h4>
        <p class="rescue-question">{fields.question ?? ''}</p>
        <h4>{t('rescueAnswer')}</h4>
        <div
          class="rescue-answer markdown"
          dangerouslySetInnerHTML={{ __html: renderMarkdown(fields.answer ?? '') }}
        />
        <h4>{t('rescueContext')}</h4>
        <p class="rescue-context">{fields.context ?? ''}</p>
        <AnswerSources sources={final?.sources} />
      </div>
      <Chat key={answer.serial} followUp={followUp} enabled={answered} disabled={offline} />
    </section>
  );
}
