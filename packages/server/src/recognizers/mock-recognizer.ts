import { readFile, stat } from 'node:fs/promises';
import { assetPath } from '../assets.ts';
import type { Recognizer, RecognizerContext, RecognizerDefinition } from './recognizer.ts';

/** The lecture script the mock mode reads when MOCK_SCRIPT is empty. */
export const BUNDLED_MOCK_SCRIPT = assetPath('mock-lecture.txt');

/** Lines of a mock script: one spoken line per line; `#` comments and blank lines skipped. */
export function parseMockScript(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Options of {@link createMockRecognizer}. */
export interface MockRecognizerOptions {
  /** The spoken lines, in order. */
  lines: readonly string[];
  /** Milliseconds between two lines. */
  intervalMs: number;
  /** Start again after the last line. */
  loop: boolean;
}

/**
 * A recognizer that "hears" scripted lines on a timer, the way a live mode would: half-way through
 * each interval the first half of the next line appears as a partial, then the whole line arrives
 * as finished text. Pause keeps the position; resume continues with the next line.
 *
 * @example
 * const recognizer = createMockRecognizer(context, { lines: ['点名了', 'Homework is due Friday'], intervalMs: 100, loop: false });
 * await recognizer.start();
 */
export function createMockRecognizer(
  context: Pick<RecognizerContext, 'emit'>,
  options: MockRecognizerOptions,
): Recognizer {
  let position = 0;
  let running = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const clear = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };

  const schedule = () => {
    clear();
    if (!running || stopped) return;
    if (position >= options.lines.length) {
      if (!options.loop || options.lines.length === 0) {
        running = false;
        context.emit({ type: 'end', reason: 'the mock script is over' });
        return;
      }
      position = 0;
    }
    const line = options.lines[position]!;
    const half = Math.max(1, Math.floor(options.intervalMs / 2));
    timer = setTimeout(() => {
      if (!running) return;
      const characters = Array.from(line);
      if (characters.length > 4) {
        context.emit({
          type: 'partial',
          text: characters.slice(0, Math.ceil(characters.length / 2)).join(''),
        });
      }
      timer = setTimeout(() => {
        if (!running) return;
        position++;
        context.emit({ type: 'text', text: line });
        schedule();
      }, options.intervalMs - half);
    }, half);
  };

  return {
    async start() {
      if (running || stopped) return;
      running = true;
      schedule();
    },
    async pause() {
      running = false;
      clear();
    },
    async resume() {
      if (running || stopped) return;
      running = true;
      schedule();
    },
    async stop() {
      stopped = true;
      running = false;
      clear();
    },
  };
}

/** ASR_MODE=mock: the bundled lecture (or MOCK_SCRIPT) on a MOCK_INTERVAL_MS timer. */
export const mockRecognizerDefinition: RecognizerDefinition = {
  mode: 'mock',
  description: 'Scripted lecture lines on a timer (no microphone, no model, no network).',
  needs: { audio: [], settings: [], model: false },
  async availability(settings) {
    const path = settings.mockScript || BUNDLED_MOCK_SCRIPT;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw new Error('not a file');
    } catch {
      return {
        available: false,
        message: `MOCK_SCRIPT points to ${path}, which is not a readable file.`,
        settings: ['MOCK_SCRIPT'],
      };
    }
    return {
      available: true,
      detail: `${settings.mockScript ? path : 'bundled lecture'}, one line every ${settings.mockIntervalMs} ms`,
    };
  },
  create(context) {
    let inner: Recognizer | undefined;
    let stopped = false;
    return {
      async start() {
        const path = context.settings.mockScript || BUNDLED_MOCK_SCRIPT;
        const lines = parseMockScript(await readFile(path, 'utf8'));
        if (stopped) return;
        inner = createMockRecognizer(context, {
          lines,
          intervalMs: context.settings.mockIntervalMs,
          loop: context.settings.mockLoop,
        });
        await inner.start();
      },
      pause: async () => inner?.pause(),
      resume: async () => inner?.resume(),
      async stop() {
        stopped = true;
        await inner?.stop();
      },
    };
  },
};
