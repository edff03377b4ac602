import type { AppState, PanelName } from '../store.ts';

/** One panel of the 480x520 window. */
export interface Panel {
  name: PanelName;
  element: HTMLElement;
  /** Called each time the panel is opened (load fresh data). */
  onShow?(): void;
  /** Called on every state change while the app runs. */
  update?(state: AppState, previous: AppState): void;
}
