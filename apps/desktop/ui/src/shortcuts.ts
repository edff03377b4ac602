// Keyboard shortcuts. Single keys work when no text field has focus; Alt+key works everywhere
// (by physical key, so Alt+R on a Mac, which types "®", still means rescue).

/** What a shortcut does. */
export type ShortcutAction =
  | 'rescue'
  | 'catchup'
  | 'ask'
  | 'class'
  | 'transcript'
  | 'notes'
  | 'library'
  | 'keywords'
  | 'settings'
  | 'pause'
  | 'escape';

const BY_CODE: Record<string, ShortcutAction> = {
  KeyR: 'rescue',
  KeyC: 'catchup',
  KeyA: 'ask',
  KeyM: 'class',
  KeyT: 'transcript',
  KeyN: 'notes',
  KeyL: 'library',
  KeyK: 'keywords',
  Comma: 'settings',
  KeyP: 'pause',
};

const BY_KEY: Record<string, ShortcutAction> = {
  r: 'rescue',
  c: 'catchup',
  a: 'ask',
  m: 'class',
  t: 'transcript',
  n: 'notes',
  l: 'library',
  k: 'keywords',
  ',': 'settings',
  p: 'pause',
};

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
 * shortcutFor({ key: 'r', code: 'KeyR', altKey: false, ctrlKey: false, metaKey: false, shiftKey: false }, false); // 'rescue'
 */
export function shortcutFor(press: KeyPress, inTextField: boolean): ShortcutAction | undefined {
  if (press.isComposing) return undefined;
  if (press.key === 'Escape') return 'escape';
  if (press.ctrlKey || press.metaKey) return undefined;
  if (press.altKey) return BY_CODE[press.code];
  if (inTextField || press.shiftKey) return undefined;
  return BY_KEY[press.key.toLowerCase()];
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
