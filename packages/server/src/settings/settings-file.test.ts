import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettingsFile, readSettingsFileSync } from './settings-file.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'settings-file-'));
});
afterEach(() => rm(folder, { recursive: true, force: true }));

describe.runIf(process.platform !== 'win32')('readSettingsFile', () => {
  it('reads a regular file or a link to one, and says when there is none', async () => {
    const file = join(folder, '.env');
    await writeFile(file, 'ASR_MODE=mock\n');
    await symlink(file, join(folder, 'linked.env'));
    for (const read of [readSettingsFile, async (path: string) => readSettingsFileSync(path)]) {
      expect(await read(file)).toEqual({ kind: 'text', text: 'ASR_MODE=mock\n' });
      expect(await read(join(folder, 'linked.env'))).toEqual({
        kind: 'text',
        text: 'ASR_MODE=mock\n',
      });
      expect(await read(join(folder, 'none.env'))).toEqual({ kind: 'missing' });
    }
  });

  it('never opens a named pipe, a folder, a socket or a device, and says what is there', async () => {
    const fifo = join(folder, 'fifo.env');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await mkdir(join(folder, 'folder.env'));
    const socketPath = join(folder, 'socket.env');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const cases = [
        [fifo, 'fifo', 'a named pipe (FIFO)'],
        [join(folder, 'folder.env'), 'directory', 'a folder'],
        [socketPath, 'socket', 'a socket'],
        ['/dev/zero', 'device', 'a device file'],
      ] as const;
      for (const [path, kind, words] of cases) {
        // A read of the pipe or of /dev/zero would never end: these return at once.
        for (const read of [readSettingsFile, async (at: string) => readSettingsFileSync(at)]) {
          const result = await read(path);
          expect(result).toMatchObject({ kind: 'unusable', problem: { path, kind } });
          if (result.kind !== 'unusable') continue;
          expect(result.problem.message.en).toBe(
            `The settings file ${path} is ${words}, not a regular file: the backend does not open it, uses the default settings and cannot save them. Remove or move it away, then save the settings again.`,
          );
          expect(result.problem.message.zh).toContain('不是普通文件');
        }
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
