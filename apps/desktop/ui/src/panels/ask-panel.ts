// Ask about this class: a question to the class agent (POST /api/ask), which looks things up in
// the material, the transcript, the notes and earlier classes; each lookup shows as a chip, the
// answer streams in and names the pages and times it used. Follow-up questions keep the chat.
import { streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h } from '../dom.ts';
import { t } from '../i18n.ts';
import { createChat } from '../views/chat.ts';
import { createOfflineNotice } from '../views/offline-notice.ts';
import type { Panel } from './panel.ts';

/** Creates the ask panel. */
export function createAskPanel(context: AppContext): Panel {
  const chat = createChat(
    context,
    async (question, history, onDelta, signal, onToolCall) => {
      const reply = await streamAnswer(
        'POST /api/ask',
        { body: { question, history } },
        { onDelta, onToolCall, signal, events: { delta: 'answer.delta', end: 'answer.done' } },
      );
      return reply.answer;
    },
    { placeholder: t('askPlaceholder') },
  );
  chat.setEnabled(true);
  const newButton = h('button', { class: 'button', onclick: () => chat.reset() }, t('askNew'));
  const offline = createOfflineNotice(context, {
    action: t('ask'),
    button: newButton,
    result: chat.element,
    controls: chat.element,
  });
  return {
    name: 'ask',
    element: h(
      'section',
      { class: 'panel-body ask-panel' },
      h('p', { class: 'intro' }, t('askIntro')),
      offline.element,
      chat.element,
      h('div', { class: 'button-row' }, newButton),
    ),
    onShow() {
      chat.element.querySelector<HTMLTextAreaElement>('.chat-input')?.focus();
    },
    update: offline.update,
  };
}
