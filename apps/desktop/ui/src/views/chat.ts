// The follow-up chat under a rescue or catch-up answer: questions and streamed answers.
import type { ToolCall } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { createToolChips } from '../tool-chips.ts';
import type { ChatTurn } from '../types.ts';

/**
 * Sends one follow-up; streams text through `onDelta` and the class agent's lookups through
 * `onToolCall`; resolves with the full answer.
 */
export type FollowUp = (
  question: string,
  history: ChatTurn[],
  onDelta: (text: string) => void,
  signal: AbortSignal,
  onToolCall: (call: ToolCall) => void,
) => Promise<string>;

/** A chat: `reset()` when a new answer starts, `setEnabled` once there is something to ask about. */
export function createChat(
  context: AppContext,
  followUp: FollowUp,
  options: { placeholder?: string } = {},
): { element: HTMLElement; reset(): void; setEnabled(enabled: boolean): void } {
  let history: ChatTurn[] = [];
  let running: AbortController | undefined;
  const log = h('div', { class: 'chat-log' });
  const input = h('textarea', {
    class: 'chat-input',
    rows: 1,
    placeholder: options.placeholder ?? t('followUpPlaceholder'),
    'aria-label': options.placeholder ?? t('followUpPlaceholder'),
  });
  const sendButton = h(
    'button',
    { class: 'icon-button send', title: t('send'), 'aria-label': t('send') },
    icon('send'),
  );

  const send = async () => {
    const question = input.value.trim();
    if (question === '' || running) return;
    input.value = '';
    const asked = h('div', { class: 'chat-turn user' }, question);
    const chips = createToolChips();
    const answer = h('div', { class: 'chat-turn assistant markdown streaming' });
    log.append(asked, chips.element, answer);
    answer.scrollIntoView({ block: 'end' });
    running = new AbortController();
    sendButton.disabled = true;
    let text = '';
    try {
      const full = await followUp(
        question,
        history,
        (delta) => {
          chips.settle();
          text += delta;
          answer.innerHTML = renderMarkdown(text);
          answer.scrollIntoView({ block: 'end' });
        },
        running.signal,
        (call) => {
          chips.add(call);
          chips.element.scrollIntoView({ block: 'end' });
        },
      );
      answer.innerHTML = renderMarkdown(full);
      history = [
        ...history,
        { role: 'user', content: question },
        { role: 'assistant', content: full },
      ];
    } catch (error) {
      answer.replaceWith(errorBox(context, error));
      input.value = question;
    } finally {
      chips.settle();
      answer.classList.remove('streaming');
      running = undefined;
      sendButton.disabled = false;
    }
  };

  sendButton.addEventListener('click', () => void send());
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void send();
    }
  });
  const form = h('div', { class: 'chat-form' }, input, sendButton);
  const element = h('div', { class: 'chat', hidden: true }, log, form);
  return {
    element,
    reset() {
      running?.abort();
      history = [];
      log.replaceChildren();
    },
    setEnabled(enabled) {
      element.hidden = !enabled;
    },
  };
}
