// The strip under the panel while a class's audio plays: pause or resume, stop, where it is, and
// why it stopped (the end, a class without audio, a failure).
import { clockTime } from '../clock-time.ts';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import type { PlaybackProblem } from '../playback.ts';
import { TechnicalDetails } from './error-box.tsx';
import { Icon } from './icon.tsx';

const PROBLEM_TEXT = {
  ended: 'playbackEnded',
  'no-audio': 'playbackNoAudio',
  failed: 'playbackFailed',
} as const satisfies Record<PlaybackProblem['kind'], string>;

/** The player strip; nothing while nothing plays. */
export function PlayerStrip() {
  const { player } = useApp();
  const playing = player.state.value;
  if (!playing) return null;
  const { problem } = playing;
  const broken = problem !== null && problem.kind !== 'ended';
  const position =
    playing.durationMs === null
      ? clockTime(playing.positionMs)
      : `${clockTime(playing.positionMs)} / ${clockTime(playing.durationMs)}`;
  return (
    <section class="player-strip" aria-label={t('playbackTitle')}>
      <button
        type="button"
        class="icon-button"
        id="player-toggle"
        disabled={broken}
        title={playing.paused ? t('resume') : t('pause')}
        aria-label={playing.paused ? t('resume') : t('pause')}
        onClick={() => player.toggle()}
      >
        <Icon name={playing.paused ? 'play' : 'pause'} />
      </button>
      <button
        type="button"
        class="icon-button"
        id="player-stop"
        title={t('playbackStop')}
        aria-label={t('playbackStop')}
        onClick={() => player.stop()}
      >
        <Icon name="stop" />
      </button>
      {problem ? (
        <div class={broken ? 'player-message error' : 'player-message'} role="status">
          <span>{t(PROBLEM_TEXT[problem.kind])}</span>
          <TechnicalDetails text={problem.technical} />
        </div>
      ) : (
        <span class="player-position" id="player-position">
          {position}
        </span>
      )}
    </section>
  );
}
