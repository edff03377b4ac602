// The keyboard: the panels' keys from the registry, pause, Escape.
import type { AppContext } from '../context.ts';
import { PANELS } from '../panels/registry.tsx';
import { isTextField, PAUSE_SHORTCUT, shortcutFor } from '../shortcuts.ts';

const SHORTCUTS = [
  ...PANELS.map((panel) => ({ action: panel.id, key: panel.shortcut })),
  PAUSE_SHORTCUT,
];

/** The keydown handler of the app (the page's and the always-on-top window's). */
export function keyHandler(app: () => AppContext): (event: KeyboardEvent) => void {
  return (event) => {
    const target = (event.target as Element | null) ?? null;
    const action = shortcutFor(event, isTextField(target), SHORTCUTS);
    if (!action) return;
    const context = app();
    const state = context.store.get();
    event.preventDefault();
    if (action === 'escape') {
      // Focus leaves the field it was in, so the next key is a shortcut, not typed text.
      // (Checked by shape: the Picture-in-Picture window's elements are of another realm.)
      if (target && 'blur' in target && target !== target.ownerDocument?.body) {
        (target as HTMLElement).blur();
      }
      if (state.alert) context.dismissAlert();
      else if (state.panel) context.openPanel(null);
    } else if (action === 'pause') {
      if (state.monitor.state === 'running') void context.pause();
      else if (state.monitor.state === 'paused') void context.resume();
    } else {
      const panel = PANELS.find((entry) => entry.id === action);
      if (panel?.onShortcut) panel.onShortcut(context);
      else context.togglePanel(action);
    }
  };
}
