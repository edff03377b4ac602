// The window follows the view: 320x80 for the bar, taller with an alert, 480x520 with a panel;
// drawn framed in an ordinary tab; the always-on-top (Document Picture-in-Picture) window.
import { unlockAudio } from '../alert-effects.ts';
import type { AppState, Store } from '../store.ts';
import { fitWindow, isFramed, openPip, pipWindow, type Size, WINDOW_SIZES } from '../window.ts';

/** The size the window should have for this state. */
function viewSize(state: Pick<AppState, 'panel' | 'alert'>): Size {
  if (state.panel) return WINDOW_SIZES.panel;
  if (state.alert) return WINDOW_SIZES.alert;
  return WINDOW_SIZES.bar;
}

/** Keeps the window fitted to the view of `appElement`; returns the pin toggle. */
export function fitWindowToView(
  store: Store,
  appElement: HTMLElement,
  host: HTMLElement,
  onKey: (event: KeyboardEvent) => void,
): { togglePin(): Promise<void> } {
  /** What the window gave the app (the alert card needs 320x156; see views/bar.ts). */
  const measureRoom = () => {
    const room = { width: appElement.clientWidth, height: appElement.clientHeight };
    const known = store.get().room;
    if (room.width !== known.width || room.height !== known.height) store.set({ room });
  };
  const updateFramed = () => {
    const size = viewSize(store.get());
    const framed =
      !pipWindow() && isFramed({ width: window.innerWidth, height: window.innerHeight }, size);
    document.body.classList.toggle('framed', framed);
    appElement.style.setProperty('--view-width', `${size.width}px`);
    appElement.style.setProperty('--view-height', `${size.height}px`);
    measureRoom();
  };
  const applySize = () => {
    fitWindow(pipWindow() ?? window, viewSize(store.get()));
    updateFramed();
    // Let the window manager settle before judging whether we are in an ordinary tab.
    setTimeout(updateFramed, 150);
  };
  window.addEventListener('resize', updateFramed);
  store.subscribe((state, previous) => {
    appElement.dataset.view = state.panel ? 'panel' : state.alert ? 'alert' : 'bar';
    if (viewSize(state) !== viewSize(previous) || state.pinned !== previous.pinned) applySize();
  });
  appElement.dataset.view = 'bar';
  updateFramed();
  applySize();
  return {
    async togglePin() {
      const open = pipWindow();
      if (open) {
        open.close();
        return;
      }
      const pip = await openPip(appElement, host, viewSize(store.get()), () => {
        store.set({ pinned: false });
        applySize();
      });
      if (pip) {
        store.set({ pinned: true });
        pip.document.addEventListener('keydown', onKey);
        pip.addEventListener('resize', measureRoom);
        unlockAudio(pip.document);
        measureRoom();
      }
    },
  };
}
