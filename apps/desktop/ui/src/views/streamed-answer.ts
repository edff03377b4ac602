// The shared life of a streamed AI answer in a panel (rescue, catch-up): a new run cancels the
// previous one, the button waits, text is shown as it arrives, and a failure shows the error
// with its way out. Each panel asks on its request signal (the bar's button, a shortcut).
import type { RestStreamEnd } from '@class-assistant/server/rest-contract';
import type { Signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type RouteInput, type StreamRoute, streamAnswer } from '../api.ts';
import { useApp } from '../context.ts';

/** Where a run stands. */
export interface StreamedAnswer<Route extends StreamRoute> {
  /** Grows with each run: a key for what belongs to one answer (its follow-up chat). */
  serial: number;
  /** The text received so far. */
  raw: string;
  /** The final answer, once it came. */
  final?: RestStreamEnd<Route>;
  /** Why it failed. */
  error?: unknown;
  running: boolean;
}

/**
 * Runs the answer of `route` each time `request` grows (and when `run()` is called); the state
 * of the latest run. Offline, a request is not sent (the panel says why).
 */
export function useStreamedAnswer<Route extends StreamRoute>(
  route: Route,
  request: Signal<number>,
): [StreamedAnswer<Route>, () => void] {
  const app = useApp();
  const [state, setState] = useState<StreamedAnswer<Route>>({ serial: 0, raw: '', running: false });
  const running = useRef<AbortController | undefined>(undefined);
  const runs = useRef(0);
  const run = async () => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    const serial = ++runs.current;
    let raw = '';
    const show = (next: Partial<StreamedAnswer<Route>>) => {
      if (running.current === controller) setState({ serial, raw, running: true, ...next });
    };
    show({});
    try {
      const final = await streamAnswer(
        route,
        // The panels' answers (rescue, catch-up) take no parameters.
        {} as RouteInput<Route>,
        {
          signal: controller.signal,
          onDelta(text) {
            raw += text;
            show({});
          },
        },
      );
      show({ final, running: false });
    } catch (error) {
      show({ error, running: false });
    } finally {
      if (running.current === controller) running.current = undefined;
    }
  };

  const asked = request.value;
  const seen = useRef(asked);
  useEffect(() => {
    if (asked === seen.current) return;
    seen.current = asked;
    if (app.store.get().connection !== 'offline') void run();
  }, [asked]);
  // Leaving the page ends the stream.
  useEffect(() => () => running.current?.abort(), []);
  return [state, () => void run()];
}
