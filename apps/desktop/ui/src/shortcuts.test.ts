import { describe, expect, it } from 'vitest';
import {
  type KeyPress,
  PAUSE_SHORTCUT,
  type Shortcut,
  shortcutFor as shortcutIn,
} from './shortcuts.ts';

// The panels' keys as panels/registry.tsx gives them, and pause.
const KEYS: Array<Shortcut<string>> = [
  ...[
    ['class', 'm'],
    ['transcript', 't'],
    ['rescue', 'r'],
    ['catchup', 'c'],
    ['ask', 'a'],
    ['notes', 'n'],
    ['library', 'l'],
    ['keywords', 'k'],
    ['settings', ','],
  ].map(([action, key]) => ({ action: action as string, key: key as string })),
  PAUSE_SHORTCUT,
];
const shortcutFor = (press: KeyPress, inTextField: boolean) => shortcutIn(press, inTextField, KEYS);

const press = (key: string, code: string, modifiers: Partial<KeyPress> = {}): KeyPress => ({
  key,
  code,
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  ...modifiers,
});

describe('shortcutFor', () => {
  it('maps single keys outside text fields', () => {
    expect(shortcutFor(press('r', 'KeyR'), false)).toBe('rescue');
    expect(shortcutFor(press('C', 'KeyC', { shiftKey: true }), false)).toBeUndefined();
    expect(shortcutFor(press('C', 'KeyC'), false)).toBe('catchup'); // Caps Lock
    expect(shortcutFor(press('c', 'KeyC'), false)).toBe('catchup');
    expect(shortcutFor(press(',', 'Comma'), false)).toBe('settings');
    expect(shortcutFor(press('p', 'KeyP'), false)).toBe('pause');
    expect(shortcutFor(press('l', 'KeyL'), false)).toBe('library');
    expect(shortcutFor(press('x', 'KeyX'), false)).toBeUndefined();
  });

  it('leaves typing alone but takes Alt+key by physical key, and Escape everywhere', () => {
    expect(shortcutFor(press('r', 'KeyR'), true)).toBeUndefined();
    expect(shortcutFor(press('®', 'KeyR', { altKey: true }), true)).toBe('rescue');
    expect(shortcutFor(press('Escape', 'Escape'), true)).toBe('escape');
    expect(shortcutFor(press('c', 'KeyC', { ctrlKey: true }), false)).toBeUndefined();
    expect(shortcutFor(press('r', 'KeyR', { isComposing: true }), false)).toBeUndefined();
  });
});
