// The app's tree: the bar (with the alert), and the 480x520 panel window with its tabs.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { Icon } from '../components/icon.tsx';
import { PlayerStrip } from '../components/player-strip.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { PANELS } from '../panels/registry.tsx';
import { BarArea } from './bar.tsx';
import { RecordingDrop } from './recording-drop.tsx';

/** The tabs and the open panel; every panel stays mounted (its answer, its draft) while hidden. */
function PanelShell() {
  const app = useApp();
  const open = app.store.use('panel').value;
  const content = useRef<HTMLDivElement>(null);
  // Each panel starts at its top (the transcript scrolls itself to its newest line).
  useLayoutEffect(() => {
    if (content.current) content.current.scrollTop = 0;
  }, [open]);
  return (
    <div class="panel-shell" hidden={open === null}>
      <div class="tabs">
        {/* The tabs wrap to a second row when their names do not fit (English); ✕ stays. */}
        <div class="tab-list" role="tablist">
          {PANELS.map((panel) => (
            <button
              type="button"
              key={panel.id}
              class={panel.id === open ? 'tab selected' : 'tab'}
              role="tab"
              data-panel={panel.id}
              aria-selected={panel.id === open ? 'true' : 'false'}
              onClick={() => app.openPanel(panel.id)}
            >
              {t(panel.title)}
            </button>
          ))}
        </div>
        <button
          type="button"
          class="icon-button tab-close"
          title={`${t('close')} (Esc)`}
          aria-label={t('close')}
          onClick={() => app.openPanel(null)}
        >
          <Icon name="close" />
        </button>
      </div>
      <div class="panel-content" ref={content}>
        {PANELS.map(({ id, component: Panel }) => (
          <Panel key={id} active={id === open} />
        ))}
      </div>
      <PlayerStrip />
    </div>
  );
}

/** Everything the app draws. */
export function Shell() {
  return (
    <>
      <BarArea />
      <PanelShell />
      <RecordingDrop />
    </>
  );
}
