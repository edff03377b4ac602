// The search path of naudiodon's real addon, as node-gyp linked it on this machine, pointed at
// the addon's own folder; the dynamic loader (ldd) then finds PortAudio there.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { packageFile } from '../../test/support/package-files.ts';
import { elfSearchPath, setElfSearchPath } from './elf.ts';

const ADDON = packageFile('naudiodon', 'build/Release/naudiodon.node');
const PORTAUDIO = packageFile('naudiodon', 'build/Release/libportaudio.so.2');

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('ELF search path', () => {
  it("points naudiodon's addon at its own folder, where the loader then finds PortAudio", async () => {
    const image = new Uint8Array(await readFile(ADDON));
    const built = elfSearchPath(image);
    expect(built).toMatch(/^\/.*\/naudiodon\/build\/Release$/);
    expect(setElfSearchPath(image, '$ORIGIN')).toBe(built);
    expect(elfSearchPath(image)).toBe('$ORIGIN');

    const folder = await mkdtemp(join(tmpdir(), 'desktop-elf-'));
    folders.push(folder);
    await writeFile(join(folder, 'naudiodon.node'), image);
    await copyFile(PORTAUDIO, join(folder, 'libportaudio.so.2'));
    const { stdout } = await promisify(execFile)('ldd', [join(folder, 'naudiodon.node')]);
    expect(stdout).toContain(`libportaudio.so.2 => ${join(folder, 'libportaudio.so.2')}`);
  });

  it('refuses a longer path and leaves a library without a search path alone', async () => {
    const image = new Uint8Array(await readFile(ADDON));
    const built = elfSearchPath(image) ?? '';
    expect(() => setElfSearchPath(image, `${built}/more`)).toThrow(
      `the new search path "${built}/more" is longer than the one in the file ("${built}")`,
    );
    const vosk = new Uint8Array(await readFile(packageFile('vosk', 'lib/linux-x86_64/libvosk.so')));
    expect(elfSearchPath(vosk)).toBeUndefined();
    expect(setElfSearchPath(vosk, '$ORIGIN')).toBeUndefined();
    expect(() => elfSearchPath(new TextEncoder().encode('MZ'.padEnd(128)))).toThrow(
      'not an ELF file',
    );
  });
});
