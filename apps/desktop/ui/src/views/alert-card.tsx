// The alert card below the bar (320x156): what kind of alert, the matched words, the whole line
// with the words marked, its own Rescue and "Got it". The line wraps over the card's four lines;
// "More" shows only for a line longer than that.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { alertKind } from '../alert-kind.ts';
import { Highlight } from '../components/highlight.tsx';
import { Icon } from '../components/icon.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import type { KeywordAlert } from '../types.ts';
import { DismissButton, PillButton } from './bar-buttons.tsx';

/** The card of one alert (mounted anew for each alert, so it is announced and flashes). */
export function AlertCard({
  alert,
  title,
  offline,
}: {
  alert: KeywordAlert;
  title: string;
  offline: boolean;
}) {
  const app = useApp();
  const card = useRef<HTMLElement>(null);
  const head = useRef<HTMLDivElement>(null);
  const chipsBox = useRef<HTMLSpanElement>(null);
  const textBox = useRef<HTMLParagraphElement>(null);
  const [expanded, setExpanded] = useState(false);
  /**
   * How the head gives way: the keyword chips go from two to one and "+N" to none (all are in
   * the tooltip), then Rescue keeps only its icon (its name in the tooltip).
   */
  const [step, setStep] = useState(0);
  const [cut, setCut] = useState(false);
  const [width, setWidth] = useState(0);

  // A new width: the chips and the line are measured again.
  useEffect(() => {
    const observer = new ResizeObserver(() => {
      setWidth(card.current?.clientWidth ?? 0);
      setStep(0);
    });
    if (card.current) observer.observe(card.current);
    return () => observer.disconnect();
  }, []);
  useLayoutEffect(() => {
    const row = head.current;
    const chips = chipsBox.current;
    const over = (element: Element | null) =>
      element !== null && element.scrollWidth > element.clientWidth;
    if (step < 3 && (over(row) || over(chips))) {
      setStep(step + 1);
      return;
    }
    const text = textBox.current;
    if (text && !expanded) setCut(text.scrollHeight > text.clientHeight + 1);
  }, [step, expanded, width]);

  const chipCount = [2, 1, 0, 0][step] ?? 0;
  const shown = alert.keywords.slice(0, chipCount);
  const more = alert.keywords.length - shown.length;
  const level = alert.level === 'danger' ? 'danger' : 'warning';
  return (
    <section
      ref={card}
      class={`alert-card flash${expanded ? ' expanded' : ''}${step === 3 ? ' tight' : ''}`}
      role="alert"
      data-level={level}
      data-kind={alertKind(alert)}
    >
      <div class="alert-head" ref={head}>
        <Icon name="bell" />
        <strong class="alert-title">{title}</strong>
        <span class="alert-keywords" ref={chipsBox} title={alert.keywords.join(', ')}>
          {shown.map((word) => (
            <span key={word} class="chip" title={word}>
              {word}
            </span>
          ))}
          {more > 0 && chipCount > 0 && <span class="chip more">{`+${more}`}</span>}
        </span>
        <PillButton
          name="rescue"
          label={t('rescue')}
          shortcut="R"
          class="rescue alert-rescue"
          disabled={offline}
          onClick={() => app.rescue()}
        />
        <DismissButton class=" alert-dismiss" />
      </div>
      <div class="alert-body">
        <p class="alert-text" ref={textBox}>
          <time class="alert-time">{alert.timestamp}</time>{' '}
          <span class="alert-words">
            <Highlight text={alert.text} keywords={alert.keywords} />
          </span>
        </p>
        <button
          type="button"
          class="link-button alert-expand"
          hidden={!expanded && !cut}
          aria-expanded={expanded ? 'true' : 'false'}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? t('alertCollapse') : t('alertExpand')}
        </button>
      </div>
    </section>
  );
}
