// The window's microphone view (capture-view.tsx) for a panel still built by hand: an element
// that draws the component, and stops drawing once it has left the page.
import { h, render } from 'preact';
import { type AppContext, AppProvider } from '../context.ts';
import { CaptureView } from './capture-view.tsx';

/** Creates one view of the window's microphone. */
export function createCaptureView(context: AppContext): {
  element: HTMLElement;
  /** Nothing to do: the view follows the app by itself. */
  update(): void;
  /** Reads the device list again (call when the panel opens). */
  onShow(): void;
} {
  const element = document.createElement('div');
  let shown = 0;
  const draw = () =>
    render(h(AppProvider, { value: context }, h(CaptureView, { active: true, shown })), element);
  draw();
  // Views are built again on a language change: a view that was in the page and is no longer
  // stops listening.
  let placed = false;
  const stop = context.capture.subscribe(() => {
    if (element.isConnected) placed = true;
    else if (placed) {
      stop();
      render(null, element);
    }
  });
  return {
    element,
    update() {},
    onShow() {
      shown++;
      draw();
    },
  };
}
