import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasMcpToken, loadMcpToken } from './mcp-token.ts';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mcp-token-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('the MCP token', () => {
  it('is made once, owner-only, and read back the same afterwards', async () => {
    const token = await loadMcpToken(dataDir);
    expect(token).toMatch(/^[\w-]{43}$/);
    const path = join(dataDir, 'mcp-token');
    expect(await readFile(path, 'utf8')).toBe(token);
    if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await loadMcpToken(dataDir)).toBe(token);
    expect(await loadMcpToken(await mkdtemp(join(tmpdir(), 'mcp-token-other-')))).not.toBe(token);
  });

  it('makes a token file others may read owner-only again, and replaces an empty one', async () => {
    const path = join(dataDir, 'mcp-token');
    await writeFile(path, 'kept-token\n');
    await chmod(path, 0o644);
    const warnings: string[] = [];
    expect(
      await loadMcpToken(dataDir, {}, { warn: (_, message) => warnings.push(String(message)) }),
    ).toBe('kept-token');
    if (process.platform !== 'win32') {
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect(warnings).toEqual([
        `${path} was readable by other users: made it readable by its owner only`,
      ]);
    }
    await writeFile(path, '  \n');
    expect(await loadMcpToken(dataDir)).toMatch(/^[\w-]{43}$/);
  });

  it('is accepted only as an exact bearer token', () => {
    expect(hasMcpToken('Bearer abc123', 'abc123')).toBe(true);
    expect(hasMcpToken('bearer abc123', 'abc123')).toBe(true);
    expect(hasMcpToken('Bearer abc1234', 'abc123')).toBe(false);
    expect(hasMcpToken('Bearer ', 'abc123')).toBe(false);
    expect(hasMcpToken('abc123', 'abc123')).toBe(false);
    expect(hasMcpToken('Basic abc123', 'abc123')).toBe(false);
    expect(hasMcpToken(undefined, 'abc123')).toBe(false);
    expect(hasMcpToken('Bearer ', '')).toBe(false);
  });
});
