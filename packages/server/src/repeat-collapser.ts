// Log lines that repeat (refused requests) collapsed into one line per second per kind.

/** Options of {@link createRepeatCollapser}. */
export interface RepeatCollapserOptions {
  /** How long one kind's lines are counted before the next is written (default 1000 ms). */
  windowMs?: number;
  /** Runs `task` after `ms` milliseconds; returns its cancellation. Default: an unref'd timer. */
  schedule?: (task: () => void, ms: number) => () => void;
  /** Most kinds followed at once (default 256); beyond it, new kinds share one. */
  maxKinds?: number;
}

/** Writes lines of a kind at most once per window, with the count of those it stands for. */
export interface RepeatCollapser {
  /**
   * The first line of `kind` in a window is written at once (`line(0)`). Later ones in the same
   * window are only counted; when the window ends the latest of them is written with the count
   * (`line(n)`: it stands for n lines, itself included) and a new window begins.
   */
  write(kind: string, line: (collapsed: number) => void): void;
  /** Writes the counted lines now and forgets every window (before the log closes). */
  flush(): void;
}

/** The kind lines share once `maxKinds` kinds are followed. */
const OTHER_KIND = 'other';

const defaultSchedule = (task: () => void, ms: number) => {
  const timer = setTimeout(task, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Creates a collapser. A page sending thousands of refused requests a second then costs the
 * log two lines per second per kind of refusal instead of one line per request.
 *
 * @example
 * const refusals = createRepeatCollapser();
 * refusals.write('ORIGIN_NOT_ALLOWED', (collapsed) =>
 *   logger.warn({ origin, ...(collapsed > 0 ? { collapsed } : {}) }, 'refused'),
 * );
 */
export function createRepeatCollapser(options: RepeatCollapserOptions = {}): RepeatCollapser {
  const windowMs = options.windowMs ?? 1000;
  const schedule = options.schedule ?? defaultSchedule;
  const maxKinds = options.maxKinds ?? 256;
  const windows = new Map<
    string,
    { count: number; latest: ((collapsed: number) => void) | undefined; cancel: () => void }
  >();

  const open = (kind: string) => {
    const state = {
      count: 0,
      latest: undefined as ((collapsed: number) => void) | undefined,
      cancel: () => {},
    };
    state.cancel = schedule(() => {
      const { count, latest } = state;
      if (count === 0 || !latest) {
        windows.delete(kind);
        return;
      }
      open(kind);
      latest(count);
    }, windowMs);
    windows.set(kind, state);
  };

  return {
    write(kind, line) {
      const key = windows.has(kind) || windows.size < maxKinds ? kind : OTHER_KIND;
      const state = windows.get(key);
      if (state) {
        state.count += 1;
        state.latest = line;
        return;
      }
      open(key);
      line(0);
    },
    flush() {
      const pending = [...windows.values()];
      windows.clear();
      for (const state of pending) {
        state.cancel();
        if (state.count > 0) state.latest?.(state.count);
      }
    },
  };
}
