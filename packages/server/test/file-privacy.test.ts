// The owner-only files of a backend started as the bin starts it (startServer, real port, real
// files), with the platform set to Windows and icacls replaced by a recorder: the settings file
// and the shutdown token are restricted to the current user before their secrets go in.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CommandRunner } from '../src/security/private-file.ts';
import { type RunningServer, startServer } from '../src/server.ts';

const folders: string[] = [];
const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** What icacls saw: its arguments and the file's content when it ran. */
interface Restriction {
  args: readonly string[];
  contentThen: string;
}

function recorder(restrictions: Restriction[], fails?: string): CommandRunner {
  return async (command, args) => {
    if (command !== 'icacls') throw new Error(`unexpected command ${command}`);
    restrictions.push({ args, contentThen: await readFile(args[0]!, 'utf8') });
    if (fails) throw new Error(fails);
    return '';
  };
}

async function start(runCommand: CommandRunner) {
  const root = await mkdtemp(join(tmpdir(), 'file-privacy-'));
  folders.push(root);
  let consoleText = '';
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      dataDir: join(root, 'data'),
      envFile: join(root, 'settings', '.env'),
    },
    {
      shutdownToken: 'the-token-of-this-run',
      filePrivacy: {
        platform: 'win32',
        environment: { USERDOMAIN: 'LAB-PC-07', USERNAME: 'student' },
        runCommand,
      },
      console: new Writable({
        write(chunk: Buffer, _encoding, callback) {
          consoleText += chunk.toString();
          callback();
        },
      }),
    },
  );
  servers.push(server);
  return { root, server, console: () => consoleText };
}

const GRANT = ['/inheritance:r', '/grant:r', 'LAB-PC-07\\student:F'];

describe('startServer on Windows', () => {
  it('restricts the new settings file, the MCP token and the shutdown token before writing them', async () => {
    const restrictions: Restriction[] = [];
    const { root } = await start(recorder(restrictions));
    const envFile = join(root, 'settings', '.env');
    const mcpTokenFile = join(root, 'data', 'mcp-token');
    const tokenFile = join(root, 'data', '_shutdown.token');
    expect(restrictions).toEqual([
      { args: [envFile, ...GRANT], contentThen: '' },
      { args: [mcpTokenFile, ...GRANT], contentThen: '' },
      { args: [tokenFile, ...GRANT], contentThen: '' },
    ]);
    expect((await readFile(mcpTokenFile, 'utf8')).trim()).toMatch(/^[\w-]{32,}$/);
    expect(await readFile(tokenFile, 'utf8')).toBe('the-token-of-this-run');
    expect(await readFile(envFile, 'utf8')).toContain('LLM_API_KEY=');
  });

  it('restricts each save of the settings through the API', async () => {
    const restrictions: Restriction[] = [];
    const { root, server } = await start(recorder(restrictions));
    restrictions.length = 0;
    const response = await fetch(`${server.url}/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ fields: { LLM_API_KEY: 'sk-lab-pc-secret-1234' } }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(restrictions).toHaveLength(1);
    expect(restrictions[0]!.args.slice(1)).toEqual(GRANT);
    expect(restrictions[0]!.args[0]).toMatch(/[/\\]\.\.env\.tmp-\d+-[0-9a-f]{8}$/);
    expect(restrictions[0]!.contentThen).toBe('');
    expect(await readFile(join(root, 'settings', '.env'), 'utf8')).toContain(
      'LLM_API_KEY=sk-lab-pc-secret-1234',
    );
  });

  it('starts anyway when icacls fails, and the log names each file left readable', async () => {
    const restrictions: Restriction[] = [];
    const { root, console } = await start(
      recorder(restrictions, 'icacls exit code 5: Access is denied.'),
    );
    const tokenFile = join(root, 'data', '_shutdown.token');
    expect(await readFile(tokenFile, 'utf8')).toBe('the-token-of-this-run');
    const log = await readFile(join(root, 'data', '_startup.log'), 'utf8');
    for (const file of [join(root, 'settings', '.env'), tokenFile]) {
      const warning = `Could not make ${file} readable by LAB-PC-07\\student only (icacls exit code 5: Access is denied.): other users of this computer may be able to read it.`;
      expect(log).toContain(JSON.stringify(warning).slice(1, -1));
      expect(console()).toContain(warning);
    }
  });
});
