import type { Recognizer } from './recognizer.ts';

/**
 * A recognizer whose implementation is loaded when it starts: a mode's client (the streaming
 * protocol, the DashScope socket, the cloud SDK) is not loaded until a class uses that mode.
 * `stop()` before `start()` loads nothing; the loaded recognizer answers every call after.
 *
 * @example
 * create: (context) =>
 *   lazyRecognizer(async () => (await import('./stream-recognizer.ts')).createStreamRecognizer({ context })),
 */
export function lazyRecognizer(load: () => Promise<Recognizer>): Recognizer {
  let loaded: Recognizer | null = null;
  let loading: Promise<Recognizer> | null = null;
  const recognizer = () => {
    loading ??= load().then((made) => {
      loaded = made;
      return made;
    });
    return loading;
  };
  return {
    input: () => loaded?.input?.(),
    recordingPosition: (atMs) => loaded?.recordingPosition?.(atMs),
    progress: () => loaded?.progress?.(),
    async start() {
      await (await recognizer()).start();
    },
    async pause() {
      await loaded?.pause();
    },
    async resume() {
      await loaded?.resume();
    },
    async stop() {
      const made = loading && (await loading.catch(() => null));
      await made?.stop();
    },
  };
}
