/**
 * The clock of a file played as an audio source (a WAV file or a recording): a pause holds the
 * position in the file while the class clock runs on, and at real-time pace a chunk waits until
 * its audio has been "spoken". Both file sources share it.
 */
export interface FilePacing {
  readonly paused: boolean;
  /** Time spent paused so far, ms (chunk times count it: the class clock never stops). */
  readonly pausedMs: number;
  pause(): void;
  resume(): void;
  /** Ends every wait for good (the source is closing). */
  close(): void;
  /** Resolves once the source is not paused (at once when it is not), or closed. */
  untilResumed(): Promise<void>;
  /** Waits `ms`, or less when the source is resumed or closed meanwhile. */
  sleep(ms: number): Promise<void>;
}

/**
 * Creates a {@link FilePacing} on the clock `now` (ms).
 *
 * @example
 * const pacing = createFilePacing(() => performance.now());
 * await pacing.untilResumed();
 * const wait = start + pacing.pausedMs + audioMs - now();
 * if (wait > 0) await pacing.sleep(wait);
 */
export function createFilePacing(now: () => number): FilePacing {
  let paused = false;
  let closed = false;
  let pausedAt = 0;
  let pausedMs = 0;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  return {
    get paused() {
      return paused;
    },
    get pausedMs() {
      return pausedMs;
    },
    pause() {
      if (paused || closed) return;
      paused = true;
      pausedAt = now();
    },
    resume() {
      if (!paused) return;
      paused = false;
      pausedMs += now() - pausedAt;
      wakeUp();
    },
    close() {
      closed = true;
      wakeUp();
    },
    async untilResumed() {
      while (paused && !closed) await new Promise<void>((resolve) => (wake = resolve));
    },
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = undefined;
          resolve();
        }, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }),
  };
}
