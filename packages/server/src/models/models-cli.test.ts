import { describe, expect, it } from 'vitest';
import { progressReporter } from './models-cli.ts';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: {
      isTTY,
      write: (text: string) => written.push(text),
    } as unknown as NodeJS.WritableStream & {
      isTTY: boolean;
    },
  };
}

describe('progressReporter', () => {
  it('redraws one bar in place on a terminal and ends its line', () => {
    const { written, stream: tty } = stream(true);
    const progress = progressReporter('vosk-small-cn', tty);
    progress.update(0, 4 * 1024 * 1024);
    progress.update(4 * 1024 * 1024, 4 * 1024 * 1024);
    progress.end();
    expect(written[0]).toMatch(/^\rvosk-small-cn \[\.{30}\] {3}0% 0\.0\/4\.0 MB /);
    expect(written[1]).toMatch(/^\rvosk-small-cn \[#{30}\] 100% 4\.0\/4\.0 MB [\d.]+ MB\/s/);
    expect(written.at(-1)).toBe('\n');
  });

  it('writes a plain line every 10 % elsewhere (logs, CI)', () => {
    const { written, stream: pipe } = stream(false);
    const progress = progressReporter('m', pipe);
    for (let received = 0; received <= 100; received += 5)
      progress.update(received * 1024 * 1024, 100 * 1024 * 1024);
    progress.end();
    expect(written).toHaveLength(11);
    expect(written[0]).toBe('m: 0% (0.0 of 100.0 MB)\n');
    expect(written[10]).toBe('m: 100% (100.0 of 100.0 MB)\n');
  });
});
