// `class-assistant-backend models …` as a user runs it: the bin as a real process against a model
// host on a loopback port — exit codes, messages, plain progress lines, and a kill -9 while it
// unpacks that leaves no half model behind.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnBin } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { type ModelServer, startModelServer } from './support/model-server.ts';
import { buildZip, fakeVoskModel } from './support/zip-writer.ts';

const children: ChildProcess[] = [];
const folders: string[] = [];
let host: ModelServer | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  await host?.close();
  host = undefined;
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function workspace(): Promise<{ dataDir: string; settings: string }> {
  const root = await mkdtemp(join(tmpdir(), 'models-cli-'));
  folders.push(root);
  const settings = join(root, '.env');
  await writeFile(settings, 'ASR_MODE=local\n');
  return { dataDir: join(root, 'data'), settings };
}

function models(args: string[], where: { dataDir: string; settings: string }) {
  const started = spawnBin([
    'models',
    ...args,
    '--data-dir',
    where.dataDir,
    '--settings-file',
    where.settings,
  ]);
  children.push(started.child);
  return {
    child: started.child,
    async result() {
      const code = await started.exited;
      return { code, ...started.output() };
    },
  };
}

describe('class-assistant-backend models', () => {
  it('pulls a model by URL with plain progress lines, lists and removes it', async () => {
    const archive = buildZip(fakeVoskModel('vosk-model-small-xx-en', { fill: 1_000_000 }));
    host = await startModelServer();
    host.put('model.zip', archive);
    const where = await workspace();
    const pulled = await models(
      [
        'pull',
        '--url',
        `${host.baseUrl}/model.zip`,
        '--sha256',
        sha256(archive),
        '--name',
        'my-en',
      ],
      where,
    ).result();
    expect(pulled.code).toBe(0);
    expect(pulled.stderr).toContain('my-en: 0% (0.0 of 1.0 MB)');
    expect(pulled.stderr).toContain('my-en: 100% (1.0 of 1.0 MB)');
    expect(pulled.stderr).toContain('my-en: checking the checksum');
    expect(pulled.stdout).toBe(
      `installed my-en (vosk) at ${join(where.dataDir, 'models', 'my-en')}\n`,
    );

    const listed = await models(['list'], where).result();
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('vosk-small-cn');
    expect(listed.stdout).toMatch(/\* my-en +en +1\.0 MB {2}\//);

    expect((await models(['remove', 'my-en'], where).result()).stdout).toBe('removed my-en\n');
    const again = await models(['remove', 'my-en'], where).result();
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no model "my-en" is installed');
  });

  it('never prints the password of a mirror address (MODELS_BASE_URL or --url)', async () => {
    host = await startModelServer();
    const where = await workspace();
    const mirror = new URL(host.baseUrl);
    mirror.username = 'student';
    mirror.password = 'mirror-pass-7788';
    await writeFile(where.settings, `ASR_MODE=local\nMODELS_BASE_URL=${mirror.href}\n`);
    const listed = await models(['list'], where).result();
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      `your mirror, tried first: http://student:••••••••@${mirror.host}`,
    );
    const pulled = await models(
      ['pull', '--url', `${mirror.href}missing.zip`, '--sha256', 'a'.repeat(64), '--name', 'x'],
      where,
    ).result();
    expect(pulled.code).not.toBe(0);
    expect(`${listed.stdout}${listed.stderr}${pulled.stdout}${pulled.stderr}`).not.toContain(
      'mirror-pass-7788',
    );
  });

  it('exits non-zero naming what failed: checksum, network, usage', async () => {
    const archive = buildZip(fakeVoskModel('m'));
    host = await startModelServer();
    host.put('model.zip', archive);
    const where = await workspace();
    const checksum = await models(
      ['pull', '--url', `${host.baseUrl}/model.zip`, '--sha256', 'a'.repeat(64), '--name', 'm'],
      where,
    ).result();
    expect(checksum.code).toBe(4);
    expect(checksum.stderr).toMatch(/^class-assistant-backend models: checksum failed: .*SHA-256/m);
    const network = await models(
      ['pull', '--url', `${host.baseUrl}/missing.zip`, '--sha256', sha256(archive), '--name', 'm'],
      where,
    ).result();
    expect(network.code).toBe(3);
    expect(network.stderr).toContain('network failed: Could not download');
    expect(network.stderr).toContain('HTTP 404');
    const usage = await models(['pull', '--url', `${host.baseUrl}/model.zip`], where).result();
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('pull --url needs --sha256');
    const unknown = await models(['pull', 'vosk-huge-xx'], where).result();
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No model "vosk-huge-xx" in the catalogue');
    expect(await readdir(join(where.dataDir, 'models'))).toEqual(['.download']);
  });

  it('leaves no half model when killed while unpacking; the next run cleans up', async () => {
    // Many files, so unpacking takes long enough to be caught in the middle.
    const archive = buildZip(fakeVoskModel('big-model', { fill: 60_000_000, files: 600 }));
    host = await startModelServer();
    host.put('big.zip', archive);
    const where = await workspace();
    const modelsDir = join(where.dataDir, 'models');
    const pull = models(
      ['pull', '--url', `${host.baseUrl}/big.zip`, '--sha256', sha256(archive), '--name', 'big'],
      where,
    );
    const temporary = join(modelsDir, `.tmp-big-${pull.child.pid}`);
    const graph = join(temporary, 'content', 'big-model', 'graph');
    await waitFor(
      async () => (await readdir(graph).catch(() => [])).length > 20,
      60_000,
      'unpacking to be under way',
    );
    pull.child.kill('SIGKILL');
    expect((await pull.result()).code).toBeNull();
    expect(existsSync(join(modelsDir, 'big'))).toBe(false);
    expect(existsSync(temporary)).toBe(true);

    const listed = await models(['list'], where).result();
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('big');
    expect(await readdir(modelsDir)).toEqual(['.download']);

    const retried = await models(
      ['pull', '--url', `${host.baseUrl}/big.zip`, '--sha256', sha256(archive), '--name', 'big'],
      where,
    ).result();
    expect(retried.code).toBe(0);
    expect((await readdir(join(modelsDir, 'big', 'graph'))).length).toBe(601);
  }, 120_000);
});
