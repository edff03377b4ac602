import { describe, expect, it } from 'vitest';
import { createChunkQueue } from './chunk-queue.ts';

const chunk = (atMs: number) => ({ samples: new Int16Array(1600), atMs });

describe('createChunkQueue', () => {
  it('drops the oldest audio past the limit, saying so once, and reads the rest in order', async () => {
    const warnings: string[] = [];
    const queue = createChunkQueue({ maxQueuedMs: 250, onWarning: (text) => warnings.push(text) });
    for (let index = 0; index < 6; index++) queue.push(chunk(index * 100));
    expect(warnings).toEqual([
      'Recognition is slower than real time: the oldest audio is being dropped.',
    ]);
    const read: number[] = [];
    let over = false;
    const reading = (async () => {
      for await (const next of queue.read(() => over)) read.push(next.atMs);
    })();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(read).toEqual([400, 500]);
    queue.push(chunk(600));
    queue.clear();
    queue.push(chunk(700));
    over = true;
    queue.notify();
    await reading;
    expect(read).toEqual([400, 500, 700]);
  });

  it('throws what the source failed with once the queue is empty', async () => {
    const queue = createChunkQueue();
    queue.push(chunk(0));
    const read: number[] = [];
    await expect(
      (async () => {
        for await (const next of queue.read(() => new Error('the microphone stopped'))) {
          read.push(next.atMs);
        }
      })(),
    ).rejects.toThrow('the microphone stopped');
    expect(read).toEqual([0]);
  });
});
