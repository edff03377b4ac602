import { describe, expect, it } from 'vitest';
import { alertKind } from './alert-kind.ts';

describe('alertKind', () => {
  it('is for you whenever the backend says the line names the student', () => {
    expect(alertKind({ level: 'danger', for_you: true })).toBe('for-you');
    expect(alertKind({ level: 'warning', for_you: true })).toBe('for-you');
  });

  it('is a roll call of someone else for a roll call not for you, attention otherwise', () => {
    expect(alertKind({ level: 'danger', for_you: false })).toBe('roll-call');
    expect(alertKind({ level: 'warning', for_you: false })).toBe('attention');
  });
});
