// Catch-up: where is the teacher now? A Markdown summary of the last ten minutes streams in;
// follow-up questions continue from it.
import { streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon } from '../dom.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { createAnswerSources } from '../views/answer-sources.ts';
import { createChat } from '../views/chat.ts';
import { createOfflineNotice } from '../views/offline-notice.ts';
import { streamedAnswer } from '../views/streamed-answer.ts';
import type { Panel } from './panel.ts';

/** Creates the catch-up panel; `run()` asks at once. */
export function createCatchupPanel(context: AppContext): Panel & { run(): void } {
  let summary = '';
  const result = h('div', { class: 'catchup-summary markdown', hidden: true });
  const sources = createAnswerSources(context);
  const status = h('div', { class: 'panel-status' });
  const runButton = h(
    'button',
    { class: 'button primary big', onclick: () => run() },
    icon('catchup'),
    t('catchupRun'),
  );
  const chat = createChat(context, async (question, history, onDelta, signal, onToolCall) => {
    const reply = await streamAnswer(
      'POST /api/catchup_chat/stream',
      { body: { summary, question, history } },
      { onDelta, signal, onToolCall },
    );
    return reply.answer;
  });

  const run = streamedAnswer(
    context,
    { button: runButton, status, result },
    {
      route: 'POST /api/catchup/stream',
      reset() {
        summary = '';
        chat.reset();
        chat.setEnabled(false);
        result.replaceChildren();
        result.classList.remove('notice');
        sources.show(undefined);
      },
      progress(raw) {
        result.innerHTML = renderMarkdown(raw);
      },
      done(final) {
        result.innerHTML = renderMarkdown(final.summary);
        // The span it covers, above the summary: "基于 18:37–18:47 的字幕".
        sources.show(final.status === 'success' ? final.sources : undefined);
        if (final.status === 'success') {
          summary = final.summary;
          chat.setEnabled(true);
        } else {
          result.classList.add('notice');
        }
      },
    },
  );

  const offline = createOfflineNotice(context, {
    action: t('catchup'),
    button: runButton,
    result,
    controls: chat.element,
  });
  const element = h(
    'section',
    { class: 'panel-body catchup-panel' },
    h('p', { class: 'intro' }, t('catchupIntro')),
    offline.element,
    runButton,
    status,
    sources.element,
    result,
    chat.element,
  );
  return {
    name: 'catchup',
    element,
    run: () => {
      if (context.store.get().connection !== 'offline') void run();
    },
    update: offline.update,
  };
}
