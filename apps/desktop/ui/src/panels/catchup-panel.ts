// Catch-up: where is the teacher now? A Markdown summary of the last ten minutes streams in;
// follow-up questions continue from it.
import { streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon } from '../dom.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import type { CatchupAnswer, ChatAnswer } from '../types.ts';
import { createChat } from '../views/chat.ts';
import { streamedAnswer } from '../views/streamed-answer.ts';
import type { Panel } from './panel.ts';

/** Creates the catch-up panel; `run()` asks at once. */
export function createCatchupPanel(context: AppContext): Panel & { run(): void } {
  let summary = '';
  const result = h('div', { class: 'catchup-summary markdown', hidden: true });
  const status = h('div', { class: 'panel-status' });
  const runButton = h(
    'button',
    { class: 'button primary big', onclick: () => run() },
    icon('catchup'),
    t('catchupRun'),
  );
  const chat = createChat(context, async (question, history, onDelta, signal) => {
    const reply = await streamAnswer<ChatAnswer>(
      '/api/catchup_chat/stream',
      { summary, question, history },
      { onDelta, signal },
    );
    return reply.answer;
  });

  const run = streamedAnswer<CatchupAnswer>(
    context,
    { button: runButton, status, result },
    {
      path: '/api/catchup/stream',
      reset() {
        summary = '';
        chat.reset();
        chat.setEnabled(false);
        result.replaceChildren();
        result.classList.remove('notice');
      },
      progress(raw) {
        result.innerHTML = renderMarkdown(raw);
      },
      done(final) {
        result.innerHTML = renderMarkdown(final.summary);
        if (final.status === 'success') {
          summary = final.summary;
          chat.setEnabled(true);
        } else {
          result.classList.add('notice');
        }
      },
    },
  );

  const element = h(
    'section',
    { class: 'panel-body catchup-panel' },
    h('p', { class: 'intro' }, t('catchupIntro')),
    runButton,
    status,
    result,
    chat.element,
  );
  return { name: 'catchup', element, run: () => void run() };
}
