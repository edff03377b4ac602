import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { zipEntries } from '../../test/support/unzip.ts';
import { writeReleaseZip } from './zip.ts';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe('writeReleaseZip', () => {
  it('puts everything under one folder, keeps executables executable, private files private and data/ empty', async () => {
    const root = await mkdtemp(join(tmpdir(), 'desktop-zip-'));
    folders.push(root);
    const release = join(root, 'release');
    await mkdir(join(release, 'backend'), { recursive: true });
    await mkdir(join(release, 'data'));
    await writeFile(join(release, 'class-assistant'), '#!/bin/sh\n');
    await chmod(join(release, 'class-assistant'), 0o755);
    await writeFile(join(release, 'backend', '.env'), 'ASR_MODE=local\n');
    await chmod(join(release, 'backend', '.env'), 0o600);
    await writeFile(join(release, 'backend', '.env.example'), 'ASR_MODE=local\n');
    await chmod(join(release, 'backend', '.env.example'), 0o644);
    await writeFile(join(release, 'data', '_startup.log'), 'from the build check');
    const zipPath = join(root, 'app.zip');
    await writeReleaseZip(release, zipPath, 'ClassAssistant-1.2.0', ['data']);
    const entries = await zipEntries(zipPath);
    expect(entries.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'ClassAssistant-1.2.0/backend/.env', mode: 0o100600 },
      { name: 'ClassAssistant-1.2.0/backend/.env.example', mode: 0o100644 },
      { name: 'ClassAssistant-1.2.0/class-assistant', mode: 0o100755 },
      { name: 'ClassAssistant-1.2.0/data/', mode: 0o40755 },
    ]);
  });
});
