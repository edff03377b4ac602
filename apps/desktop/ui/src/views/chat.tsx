// The follow-up chat under a rescue or catch-up answer, and the ask panel's chat: questions and
// streamed answers, with the class agent's lookups as chips above each answer.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ToolCall } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { Icon } from '../components/icon.tsx';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { toolCallText } from '../tool-chips.ts';
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

/** One question and its answer as it stands. */
interface Turn {
  question: string;
  calls: ToolCall[];
  answer: string;
  /** The answer's words began (or it ended): no lookup is running any more. */
  settled: boolean;
  streaming: boolean;
  error?: unknown;
}

/** Each lookup as a chip, the newest one running until the answer's words begin. */
function ToolChips({ calls, settled }: { calls: ToolCall[]; settled: boolean }) {
  return (
    <ul class="tool-chips" hidden={calls.length === 0} aria-live="polite">
      {calls.map((call, index) => {
        const running = !settled && index === calls.length - 1;
        return (
          <li
            key={index}
            class={running ? 'tool-chip running' : 'tool-chip'}
            aria-busy={running ? 'true' : undefined}
            data-tool={call.name}
          >
            {toolCallText(call)}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A chat (a new `key` starts it afresh, ending a running answer); hidden until `enabled`, its
 * controls wait while `disabled`, marked `stale` (an answer from before the backend went away).
 */
export function Chat({
  followUp,
  placeholder = t('followUpPlaceholder'),
  enabled = true,
  disabled = false,
  stale = false,
  onTurns,
}: {
  followUp: FollowUp;
  placeholder?: string;
  enabled?: boolean;
  disabled?: boolean;
  stale?: boolean;
  /** Told how many questions were asked. */
  onTurns?(count: number): void;
}) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const running = useRef<AbortController | undefined>(undefined);
  const history = useRef<ChatTurn[]>([]);
  const log = useRef<HTMLDivElement>(null);
  // Leaving (or starting afresh) ends the answer being written.
  useEffect(() => () => running.current?.abort(), []);
  useEffect(() => onTurns?.(turns.length), [turns.length]);
  // The newest words stay in view as they arrive.
  useLayoutEffect(() => {
    log.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [turns]);

  const send = async () => {
    const question = draft.trim();
    if (question === '' || running.current) return;
    setDraft('');
    const controller = new AbortController();
    running.current = controller;
    setBusy(true);
    let turn: Turn = { question, calls: [], answer: '', settled: false, streaming: true };
    const index = turns.length;
    const show = (patch: Partial<Turn>) => {
      if (controller.signal.aborted) return;
      turn = { ...turn, ...patch };
      const shown = turn;
      setTurns((all) => [...all.slice(0, index), shown]);
    };
    show({});
    try {
      const full = await followUp(
        question,
        history.current,
        (delta) => show({ settled: true, answer: turn.answer + delta }),
        controller.signal,
        (call) => show({ calls: [...turn.calls, call] }),
      );
      history.current = [
        ...history.current,
        { role: 'user', content: question },
        { role: 'assistant', content: full },
      ];
      show({ answer: full, settled: true, streaming: false });
    } catch (error) {
      show({ error, settled: true, streaming: false });
      if (!controller.signal.aborted) setDraft(question);
    } finally {
      if (!controller.signal.aborted) {
        running.current = undefined;
        setBusy(false);
      }
    }
  };

  return (
    <div class={stale ? 'chat stale' : 'chat'} hidden={!enabled}>
      <div class="chat-log" ref={log}>
        {turns.map((turn, index) => [
          <div key={`q${index}`} class="chat-turn user">
            {turn.question}
          </div>,
          <ToolChips key={`c${index}`} calls={turn.calls} settled={turn.settled} />,
          turn.error ? (
            <ErrorBox key={`e${index}`} error={turn.error} />
          ) : (
            <div
              key={`a${index}`}
              class={
                turn.streaming
                  ? 'chat-turn assistant markdown streaming'
                  : 'chat-turn assistant markdown'
              }
              dangerouslySetInnerHTML={{ __html: renderMarkdown(turn.answer) }}
            />
          ),
        ])}
      </div>
      <div class="chat-form">
        <textarea
          class="chat-input"
          rows={1}
          placeholder={placeholder}
          aria-label={placeholder}
          value={draft}
          disabled={disabled}
          onInput={(event) => setDraft(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              void send();
            }
          }}
        />
        <button
          type="button"
          class="icon-button send"
          title={t('send')}
          aria-label={t('send')}
          disabled={disabled || busy}
          onClick={() => void send()}
        >
          <Icon name="send" />
        </button>
      </div>
    </div>
  );
}
