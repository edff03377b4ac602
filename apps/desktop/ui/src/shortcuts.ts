// Keyboard shortcuts. Single keys work when no text field has focus; Alt+key works everywhere
// (by physical key, so Alt+R on a Mac, which types "®", still means rescue).

/** A key that does something: a panel's (panels/registry.tsx) or pause/resume. */
export interface Shortcut<Action extends string> {
  action: Action;
  /** A letter, or `,`. */
  key: string;
}

/** Pause or resume the class. */
export const PAUSE_SHORTCUT: Shortcut<'pause'> = { action: 'pause', key: 'p' };

/** The physical key of a shortcut's key (US layout), for Alt+key. */
function codeOf(key: string): string {
  return key === ',' ? 'Comma' : `Key${key.toUpperCase()}`;
}

/** The parts of a KeyboardEvent a shortcut depends on. */
export interface KeyPress {
  key: string;
  code: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  isComposing?: boolean;
}

/**
 * The action of a key press, if any. `inTextField`: focus is in an input, textarea or select.
 *
 * @example
 * shortcutFor(
 *   { key: 'r', code: 'KeyR', altKey: false, ctrlKey: false, metaKey: false, shiftKey: false },
 *   false,
 *   [{ action: 'rescue', key: 'r' }],
 * ); // 'rescue'
 */
export function shortcutFor<Action extends string>(
  press: KeyPress,
  inTextField: boolean,
  shortcuts: ReadonlyArray<Shortcut<Action>>,
): Action | 'escape' | undefined {
  if (press.isComposing) return undefined;
  if (press.key === 'Escape') return 'escape';
  if (press.ctrlKey || press.metaKey) return undefined;
  if (press.altKey)
    return shortcuts.find((shortcut) => codeOf(shortcut.key) === press.code)?.action;
  if (inTextField || press.shiftKey) return undefined;
  const key = press.key.toLowerCase();
  return shortcuts.find((shortcut) => shortcut.key === key)?.action;
}

/** True when the element takes typed text. */
export function isTextField(element: Element | null): boolean {
  if (!element) return false;
  const tag = element.tagName;
  return (
    tag === 'TEXTAREA' ||
    tag === 'SELECT' ||
    (tag === 'INPUT' &&
      !['checkbox', 'radio', 'button', 'submit', 'file'].includes(
        (element as HTMLInputElement).type,
      )) ||
    (element as HTMLElement).isContentEditable === true
  );
}
