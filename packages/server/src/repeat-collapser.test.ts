import { describe, expect, it } from 'vitest';
import { createRepeatCollapser } from './repeat-collapser.ts';

/** A schedule run by hand: `tick()` runs what is due now. */
function manualSchedule() {
  const tasks = new Set<() => void>();
  return {
    schedule(task: () => void) {
      tasks.add(task);
      return () => tasks.delete(task);
    },
    tick() {
      const due = [...tasks];
      tasks.clear();
      for (const task of due) task();
    },
    get pending() {
      return tasks.size;
    },
  };
}

describe('createRepeatCollapser', () => {
  it('writes the first line of a kind at once and the rest of its second as one line with a count', () => {
    const clock = manualSchedule();
    const collapser = createRepeatCollapser({ schedule: clock.schedule });
    const written: string[] = [];
    const line = (name: string) => (collapsed: number) => written.push(`${name} ${collapsed}`);
    for (let index = 1; index <= 1000; index++) collapser.write('ORIGIN', line(`origin#${index}`));
    collapser.write('TOKEN', line('token#1'));
    collapser.write('TOKEN', line('token#2'));
    expect(written).toEqual(['origin#1 0', 'token#1 0']);
    clock.tick();
    // The latest of each kind, standing for every one not written before.
    expect(written).toEqual(['origin#1 0', 'token#1 0', 'origin#1000 999', 'token#2 1']);
    // Still coming: still one line per window.
    for (let index = 1001; index <= 1500; index++)
      collapser.write('ORIGIN', line(`origin#${index}`));
    clock.tick();
    expect(written.slice(4)).toEqual(['origin#1500 500']);
    // A quiet window ends the kind's windows: nothing is left scheduled.
    clock.tick();
    clock.tick();
    expect(clock.pending).toBe(0);
    collapser.write('ORIGIN', line('origin#later'));
    expect(written.at(-1)).toBe('origin#later 0');
  });

  it('writes what it counted when flushed, and shares one kind beyond maxKinds', () => {
    const clock = manualSchedule();
    const collapser = createRepeatCollapser({ schedule: clock.schedule, maxKinds: 2 });
    const written: string[] = [];
    for (const kind of ['a', 'b', 'c', 'd', 'a', 'c']) {
      collapser.write(kind, (collapsed) => written.push(`${kind} ${collapsed}`));
    }
    expect(written).toEqual(['a 0', 'b 0', 'c 0']);
    collapser.flush();
    expect(written.slice(3).sort()).toEqual(['a 1', 'c 2']);
    expect(clock.pending).toBe(0);
  });
});
