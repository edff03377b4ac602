// The window follows the view (docs/architecture.md, "Desktop"): 320x80 for the bar, 480x520 with a
// panel open, taller while an alert shows. Sizes are of the page itself; the browser's own frame
// (title bar of the app window) is measured and added. Chromium lets an --app window resize
// itself; in an ordinary tab resizeTo does nothing and the app is drawn in a frame of its size.
import appConfig from '../../app.json' with { type: 'json' };

/** A size in CSS pixels. */
export interface Size {
  width: number;
  height: number;
}

/** The sizes of the three views, from the app's config (apps/desktop/app.json). */
export const WINDOW_SIZES: Readonly<Record<'bar' | 'alert' | 'panel', Size>> = appConfig.window;

/** The outer size that gives a page of `size` in a window with this frame. */
export function outerSizeFor(
  size: Size,
  frame: { outerWidth: number; outerHeight: number; innerWidth: number; innerHeight: number },
): Size {
  return {
    width: size.width + Math.max(0, frame.outerWidth - frame.innerWidth),
    height: size.height + Math.max(0, frame.outerHeight - frame.innerHeight),
  };
}

/** Resizes `target` so its page is `size`; false when the browser has no window to resize. */
export function fitWindow(target: Window, size: Size): boolean {
  if (target.outerWidth === 0 || target.outerHeight === 0) return false;
  const outer = outerSizeFor(size, target);
  if (outer.width === target.outerWidth && outer.height === target.outerHeight) return true;
  try {
    target.resizeTo(outer.width, outer.height);
    return true;
  } catch {
    return false;
  }
}

/** True when the page is much larger than the view: an ordinary tab, drawn framed. */
export function isFramed(viewport: Size, size: Size): boolean {
  return viewport.width > size.width + 160 && viewport.height > size.height + 120;
}

interface DocumentPictureInPicture {
  requestWindow(options: { width: number; height: number }): Promise<Window>;
  readonly window: Window | null;
}

function pictureInPicture(): DocumentPictureInPicture | undefined {
  return (window as unknown as { documentPictureInPicture?: DocumentPictureInPicture })
    .documentPictureInPicture;
}

/** True where the browser offers Document Picture-in-Picture (an always-on-top window). */
export function pipAvailable(): boolean {
  return pictureInPicture() !== undefined;
}

/** The always-on-top window, while open. */
export function pipWindow(): Window | null {
  return pictureInPicture()?.window ?? null;
}

/**
 * Moves `root` into an always-on-top Picture-in-Picture window of `size` (must run in a click
 * handler). The stylesheets are copied; when the window closes, `root` returns to `home` and
 * `onClose` runs.
 */
export async function openPip(
  root: HTMLElement,
  home: HTMLElement,
  size: Size,
  onClose: () => void,
): Promise<Window | undefined> {
  const api = pictureInPicture();
  if (!api) return undefined;
  const pip = await api.requestWindow({ width: size.width, height: size.height });
  for (const sheet of Array.from(document.styleSheets)) {
    try {
      const style = pip.document.createElement('style');
      style.textContent = Array.from(sheet.cssRules)
        .map((rule) => rule.cssText)
        .join('\n');
      pip.document.head.appendChild(style);
    } catch {
      if (sheet.href) {
        const link = pip.document.createElement('link');
        link.rel = 'stylesheet';
        link.href = sheet.href;
        pip.document.head.appendChild(link);
      }
    }
  }
  pip.document.documentElement.lang = document.documentElement.lang;
  pip.document.title = document.title;
  pip.document.body.className = 'pip';
  pip.document.body.appendChild(root);
  pip.addEventListener(
    'pagehide',
    () => {
      home.appendChild(root);
      onClose();
    },
    { once: true },
  );
  return pip;
}
