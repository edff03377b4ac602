// The live transcript: every line of the class with its time, keywords marked, the text being
// recognised at the bottom; it follows new lines unless the student scrolled up to read.
import { Component } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Highlight } from '../components/highlight.tsx';
import { PageLabel } from '../components/page-label.tsx';
import { PlayLineButton, useFollowHeard, useHeardLine } from '../components/play-line.tsx';
import { useApp } from '../context.ts';
import { describeError } from '../errors.ts';
import { t } from '../i18n.ts';
import { renderMarkdown } from '../markdown.ts';
import { pageStarts } from '../page-starts.ts';
import { liveClassId } from '../playback.ts';
import type { TranscriptLine } from '../types.ts';
import type { PanelProps } from './registry.tsx';

interface LineProps {
  line: TranscriptLine;
  keywords: readonly string[];
  revealed: boolean;
  /** The line whose audio is being heard. */
  heard: boolean;
  /** Plays the class's audio from a line (the same function every time). */
  onPlay: (line: TranscriptLine) => void;
  /** The material page this line starts (the teacher moved to it), else null. */
  pageStart: number | null;
}

/** One line; drawn again only when its text, the keywords or its mark change. */
class Line extends Component<LineProps> {
  override shouldComponentUpdate(next: LineProps) {
    const now = this.props;
    return (
      next.line !== now.line ||
      next.keywords !== now.keywords ||
      next.revealed !== now.revealed ||
      next.heard !== now.heard ||
      next.pageStart !== now.pageStart
    );
  }
  override render({ line, keywords, revealed, heard, onPlay, pageStart }: LineProps) {
    const classes = [
      revealed ? 'revealed' : '',
      line.audio_ms === null ? '' : 'playable',
      heard ? 'heard' : '',
    ].join(' ');
    return (
      <li
        data-id={line.id}
        class={classes.trim() || undefined}
        aria-current={heard ? 'true' : undefined}
      >
        {pageStart !== null && <PageLabel page={pageStart} />}
        <time>{line.timestamp}</time>
        <span>
          <Highlight text={line.text} keywords={keywords} />
          {line.translation ? <small class="line-translation">{line.translation}</small> : null}
        </span>
        {line.audio_ms === null ? null : (
          <PlayLineButton ms={line.audio_ms} onPlay={() => onPlay(line)} />
        )}
      </li>
    );
  }
}

/** The text being recognised: its own slice, so a partial redraws only this. */
function Partial({ onChange }: { onChange(): void }) {
  const app = useApp();
  const partial = app.store.use('partial').value;
  useLayoutEffect(onChange, [partial]);
  return <p class="transcript-partial">{partial ? `${partial}…` : ''}</p>;
}

/** "Nothing yet", until the first words. */
function Empty() {
  const { store } = useApp();
  const none = store.use('lines').value.length === 0 && store.use('partial').value === '';
  return (
    <p class="empty" hidden={!none}>
      {t('transcriptEmpty')}
    </p>
  );
}

/** The older lines, summarised by the backend. */
function History() {
  const summary = useApp().store.use('historySummary').value;
  return (
    <details class="history" hidden={summary.trim() === ''}>
      <summary>{t('historySummary')}</summary>
      <div class="markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(summary) }} />
    </details>
  );
}

/** The transcript panel; an answer's source (`app.requests.reveal`) is scrolled to and marked. */
export function TranscriptPanel({ active }: PanelProps) {
  const app = useApp();
  const lines = app.store.use('lines').value;
  const keywords = app.store.use('keywords').value;
  const starts = pageStarts(lines);
  const request = app.requests.reveal.value;
  const [revealed, setRevealed] = useState<{ id: number } | null>(null);
  const [newLines, setNewLines] = useState(false);
  const section = useRef<HTMLElement>(null);
  // Follow new lines until the student scrolls up to read; scrolling back down follows again.
  const follow = useRef(true);
  const lastId = useRef<number | undefined>(undefined);
  /** A line asked for before the panel was on screen: shown instead of the newest line. */
  const pending = useRef<number | undefined>(undefined);
  const seenRequest = useRef(request);
  const activeNow = useRef(active);
  activeNow.current = active;
  // The library id of the class these lines belong to, learnt at the first ▶ (kept until
  // another class starts).
  const [audioClass, setAudioClass] = useState<{ id: string; startedAt: string | null } | null>(
    null,
  );
  const list = useRef<HTMLOListElement>(null);
  const heard = useHeardLine(lines, audioClass?.id ?? null);
  useFollowHeard(list, heard, (id) => `li[data-id="${id}"]`);
  const known = useRef(audioClass);
  known.current = audioClass;
  const playLine = useRef(async (line: TranscriptLine) => {
    const { monitor, lang } = app.store.get();
    const running = monitor.state !== 'idle';
    try {
      let target = known.current;
      if (!target || (running && target.startedAt !== monitor.started_at)) {
        const id = await liveClassId();
        if (id === null) {
          app.toast(t('playbackNoAudio'), 'error');
          return;
        }
        target = { id, startedAt: monitor.started_at };
        setAudioClass(target);
      }
      await app.player.play(target.id, line.audio_ms ?? 0, { live: running });
    } catch (error) {
      app.toast(describeError(error, lang).message, 'error');
    }
  }).current;

  const box = () => section.current?.parentElement ?? null;
  const atBottom = () => {
    const scroller = box();
    return !scroller || scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 40;
  };
  const toBottom = () => {
    const scroller = box();
    if (scroller) scroller.scrollTop = scroller.scrollHeight;
    follow.current = true;
    setNewLines(false);
  };
  const stick = () => {
    if (activeNow.current && follow.current) toBottom();
  };

  useEffect(() => {
    const scroller = box();
    if (!scroller) return;
    const onScroll = () => {
      if (!activeNow.current) return;
      follow.current = atBottom();
      if (follow.current) setNewLines(false);
    };
    scroller.addEventListener('scroll', onScroll);
    // The box shrinks when an alert card appears: stay at the bottom.
    const resized = new ResizeObserver(stick);
    resized.observe(scroller);
    return () => {
      scroller.removeEventListener('scroll', onScroll);
      resized.disconnect();
    };
  }, []);

  // New lines: followed, or announced by the "new lines" button while the student reads above.
  useLayoutEffect(() => {
    const newest = lines[lines.length - 1]?.id;
    const added = newest !== undefined && newest !== lastId.current;
    lastId.current = newest;
    if (!activeNow.current) return;
    if (follow.current) toBottom();
    else if (added) setNewLines(true);
  }, [lines, keywords]);

  useEffect(() => {
    if (request && request !== seenRequest.current) pending.current = request.id;
    seenRequest.current = request;
    if (!active) return;
    const frame = requestAnimationFrame(() => {
      const id = pending.current;
      pending.current = undefined;
      if (id === undefined) toBottom();
      else if (lines.some((line) => line.id === id)) setRevealed({ id });
    });
    return () => cancelAnimationFrame(frame);
  }, [active, request]);

  useLayoutEffect(() => {
    if (!revealed) return;
    section.current
      ?.querySelector(`li[data-id="${revealed.id}"]`)
      ?.scrollIntoView({ block: 'center' });
    // The student is reading this line: stop following new ones until they scroll down.
    follow.current = atBottom();
  }, [revealed]);

  return (
    <section class="panel-body transcript-panel" hidden={!active} ref={section}>
      <History />
      <Empty />
      <ol class="transcript-lines" ref={list}>
        {lines.map((line, index) => (
          <Line
            key={line.id}
            line={line}
            keywords={keywords}
            revealed={line.id === revealed?.id}
            heard={line.id === heard}
            onPlay={(played) => void playLine(played)}
            pageStart={starts[index] ?? null}
          />
        ))}
      </ol>
      <Partial onChange={stick} />
      <button type="button" class="new-lines" hidden={!newLines} onClick={toBottom}>
        {t('newLines')}
      </button>
    </section>
  );
}
