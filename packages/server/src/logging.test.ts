import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessLogger } from './logging.ts';

let folder: string | undefined;
afterEach(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('the process log', () => {
  it('masks address passwords and keys in the startup log file and on the console', async () => {
    folder = await mkdtemp(join(tmpdir(), 'class-assistant-log-'));
    const file = join(folder, '_startup.log');
    let shown = '';
    const console = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        shown += chunk.toString('utf8');
        callback();
      },
    });
    const { logger, flush } = createProcessLogger({ level: 'info', file, console });
    logger.warn(
      { url: 'postgres://app:field-Pass-5150@127.0.0.1/db' },
      'cannot reach http://me:message-Pass-6261@127.0.0.1:9/v1 with sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
    );
    logger.info('ready: http://127.0.0.1:8765');
    await flush();
    const written = await readFile(file, 'utf8');
    for (const text of [written, shown]) {
      expect(text).toContain('postgres://app:••••••••@127.0.0.1/db');
      expect(text).toContain('cannot reach http://me:••••••••@127.0.0.1:9/v1 with ••••••••Xy4z');
      expect(text).toContain('ready: http://127.0.0.1:8765');
      expect(text).not.toMatch(/field-Pass|message-Pass|sk-proj/);
    }
    // Still one JSON object per line.
    expect(
      written
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).msg),
    ).toHaveLength(2);
  });
});
