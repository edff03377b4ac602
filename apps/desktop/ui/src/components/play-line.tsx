// A line's ▶ (its class's audio from the line's moment), and what a list of lines does while that
// audio plays: the line being heard is marked and kept in view, unless the student scrolled away.
import type { RefObject } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { clockTime } from '../clock-time.ts';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { heardLine } from '../playback.ts';
import { Icon } from './icon.tsx';

/** The ▶ of a line whose speech starts `ms` into its class's audio. */
export function PlayLineButton({ ms, onPlay }: { ms: number; onPlay: () => void }) {
  const label = t('playLine', { time: clockTime(ms) });
  return (
    <button
      type="button"
      class="icon-button line-play"
      title={label}
      aria-label={label}
      onClick={onPlay}
    >
      <Icon name="play" />
    </button>
  );
}

/** The id of the line being heard among `lines`, while their class's audio plays; else null. */
export function useHeardLine(
  lines: ReadonlyArray<{ id: number; audio_ms: number | null }>,
  classId: string | null,
): number | null {
  const playing = useApp().player.state.value;
  if (!playing || playing.classId !== classId) return null;
  return heardLine(lines, playing.positionMs);
}

/** True when all of `element` shows in `box` (a pixel of rounding allowed). */
function inView(element: Element, box: Element): boolean {
  const shown = box.getBoundingClientRect();
  const rect = element.getBoundingClientRect();
  return rect.top >= shown.top - 1 && rect.bottom <= shown.bottom + 1;
}

/**
 * Keeps the line being heard (`heard`, an id; `selector(id)` finds its element in `list`) in
 * view: scrolled to when playback moves to a line out of view, but only while the line heard
 * before was in view — a student who scrolled away to read is left there.
 */
export function useFollowHeard(
  list: RefObject<HTMLElement | null>,
  heard: number | null,
  selector: (id: number) => string,
): void {
  const before = useRef<number | null>(null);
  useLayoutEffect(() => {
    const previous = before.current;
    before.current = heard;
    if (heard === null || heard === previous || !list.current) return;
    const box = list.current.closest('.panel-content');
    const line = list.current.querySelector(selector(heard));
    if (!box || !line) return;
    const earlier = previous === null ? null : list.current.querySelector(selector(previous));
    if (earlier && !inView(earlier, box)) return;
    if (!inView(line, box)) line.scrollIntoView({ block: 'nearest' });
  }, [heard]);
}
