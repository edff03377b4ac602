// The shared life of a streamed AI answer in a panel (rescue, catch-up): a new run cancels the
// previous one, the button waits, text is shown as it arrives, and a failure replaces the result
// with the error and its way out.
import type { RestStreamEnd } from '@class-assistant/server/rest-contract';
import { type RouteInput, type StreamRoute, streamAnswer } from '../api.ts';
import type { AppContext } from '../context.ts';
import { errorBox } from '../errors.ts';

/** The parts of the panel a run drives. */
export interface StreamedAnswerParts {
  button: HTMLButtonElement;
  /** Where an error goes. */
  status: HTMLElement;
  /** The answer; marked `streaming` while text arrives (a blinking caret). */
  result: HTMLElement;
}

/** What a panel does at each step. */
export interface StreamedAnswerSteps<Route extends StreamRoute> {
  /** The streamed route (`POST /api/…/stream`). */
  route: Route;
  /** Clears the previous answer. */
  reset(): void;
  /** Shows the text received so far. */
  progress(text: string): void;
  /** Shows the final answer. */
  done(final: RestStreamEnd<Route>): void;
}

/** Returns the function that runs (or reruns) the answer. */
export function streamedAnswer<Route extends StreamRoute>(
  context: AppContext,
  parts: StreamedAnswerParts,
  steps: StreamedAnswerSteps<Route>,
): () => Promise<void> {
  let running: AbortController | undefined;
  return async () => {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    steps.reset();
    parts.status.replaceChildren();
    parts.result.hidden = false;
    parts.result.classList.add('streaming');
    parts.button.disabled = true;
    let raw = '';
    try {
      const final = await streamAnswer(
        steps.route,
        // The panels' answers (rescue, catch-up) take no parameters.
        {} as RouteInput<Route>,
        {
          signal: controller.signal,
          onDelta(text) {
            raw += text;
            steps.progress(raw);
          },
        },
      );
      if (running === controller) steps.done(final);
    } catch (error) {
      if (running !== controller) return;
      parts.result.hidden = raw === '';
      parts.status.replaceChildren(errorBox(context, error));
    } finally {
      if (running === controller) {
        running = undefined;
        parts.button.disabled = false;
        parts.result.classList.remove('streaming');
      }
    }
  };
}
