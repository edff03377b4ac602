// Ask about this class: a question to the class agent (POST /api/ask), which looks things up in
// the material, the transcript, the notes and earlier classes; each lookup shows as a chip, the
// answer streams in and names the pages and times it used. Follow-up questions keep the chat.
import { useEffect, useRef, useState } from 'preact/hooks';
import { streamAnswer } from '../api.ts';
import { t } from '../i18n.ts';
import { Chat, type FollowUp } from '../views/chat.tsx';
import { OfflineNotice, useOffline } from '../views/offline-notice.tsx';
import type { PanelProps } from './registry.tsx';

const ask: FollowUp = async (question, history, onDelta, signal, onToolCall) => {
  const reply = await streamAnswer(
    'POST /api/ask',
    { body: { question, history } },
    { onDelta, onToolCall, signal, events: { delta: 'answer.delta', end: 'answer.done' } },
  );
  return reply.answer;
};

/** The ask panel: the input has the focus when it opens. */
export function AskPanel({ active }: PanelProps) {
  const offline = useOffline();
  const [chats, setChats] = useState(0);
  const [asked, setAsked] = useState(0);
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    if (active) section.current?.querySelector<HTMLTextAreaElement>('.chat-input')?.focus();
  }, [active]);
  return (
    <section class="panel-body ask-panel" hidden={!active} ref={section}>
      <p class="intro">{t('askIntro')}</p>
      <OfflineNotice action={t('ask')} stale={asked > 0} />
      <Chat
        key={chats}
        followUp={ask}
        placeholder={t('askPlaceholder')}
        disabled={offline}
        stale={offline && asked > 0}
        onTurns={setAsked}
      />
      <div class="button-row">
        <button type="button" class="button" disabled={offline} onClick={() => setChats(chats + 1)}>
          {t('askNew')}
        </button>
      </div>
    </section>
  );
}
