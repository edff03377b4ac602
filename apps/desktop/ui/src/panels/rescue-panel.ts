// Rescue: what did the teacher just ask, and what can I say? The answer streams in field by
// field (the model writes a JSON object); follow-up questions continue from it.
import { streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon } from '../dom.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { looksLikeJson, partialJsonStrings } from '../partial-json.ts';
import { createAnswerSources } from '../views/answer-sources.ts';
import { createChat } from '../views/chat.ts';
import { createOfflineNotice } from '../views/offline-notice.ts';
import { streamedAnswer } from '../views/streamed-answer.ts';
import type { Panel } from './panel.ts';

/** Creates the rescue panel; `run()` asks at once. */
export function createRescuePanel(context: AppContext): Panel & { run(): void } {
  let current: { context: string; question: string; answer: string } | undefined;

  const question = h('p', { class: 'rescue-question' });
  const answer = h('div', { class: 'rescue-answer markdown' });
  const about = h('p', { class: 'rescue-context' });
  const sources = createAnswerSources(context);
  const result = h(
    'div',
    { class: 'rescue-result', hidden: true },
    h('h4', null, t('rescueQuestion')),
    question,
    h('h4', null, t('rescueAnswer')),
    answer,
    h('h4', null, t('rescueContext')),
    about,
    sources.element,
  );
  const status = h('div', { class: 'panel-status' });
  const runButton = h(
    'button',
    { class: 'button primary big', onclick: () => run() },
    icon('rescue'),
    t('rescueRun'),
  );
  const chat = createChat(context, async (followup, history, onDelta, signal, onToolCall) => {
    const reply = await streamAnswer(
      'POST /api/emergency_rescue_chat/stream',
      { body: { ...(current ?? { context: '', question: '', answer: '' }), followup, history } },
      { onDelta, signal, onToolCall },
    );
    return reply.answer;
  });

  const show = (fields: Partial<Record<string, string>>) => {
    question.textContent = fields.question ?? '';
    about.textContent = fields.context ?? '';
    answer.innerHTML = renderMarkdown(fields.answer ?? '');
  };

  const run = streamedAnswer(
    context,
    { button: runButton, status, result },
    {
      route: 'POST /api/emergency_rescue/stream',
      reset() {
        current = undefined;
        chat.reset();
        chat.setEnabled(false);
        show({});
        sources.show(undefined);
      },
      progress(raw) {
        show(
          looksLikeJson(raw)
            ? partialJsonStrings(raw, ['question', 'context', 'answer'])
            : { answer: raw },
        );
      },
      done(final) {
        show({ question: final.question, context: final.context, answer: final.answer });
        sources.show(final.sources);
        if (final.status === 'warning') {
          status.replaceChildren(h('p', { class: 'notice' }, t('rescueNoTranscript')));
        } else {
          current = { context: final.context, question: final.question, answer: final.answer };
          chat.setEnabled(true);
        }
      },
    },
  );

  const offline = createOfflineNotice(context, {
    action: t('rescue'),
    button: runButton,
    result,
    controls: chat.element,
  });
  const element = h(
    'section',
    { class: 'panel-body rescue-panel' },
    h('p', { class: 'intro' }, t('rescueIntro')),
    offline.element,
    runButton,
    status,
    result,
    chat.element,
  );
  return {
    name: 'rescue',
    element,
    run: () => {
      if (context.store.get().connection !== 'offline') void run();
    },
    update: offline.update,
  };
}
