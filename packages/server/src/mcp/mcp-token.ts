// The token MCP clients present to /mcp: made once, at the first start, and kept in
// <data>/mcp-token, readable by its owner only. It is never served over HTTP (every user of the
// computer can reach the loopback port): `class-assistant-backend mcp token` prints it.
import { randomBytes } from 'node:crypto';
import { chmod, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DATA_FOLDER } from '../data-folder.ts';
import { readTextIfExists } from '../files.ts';
import { bearerToken, sameSecret } from '../security/api-token.ts';
import {
  createPrivateFile,
  type FilePrivacyOptions,
  type PrivacyLogger,
} from '../security/private-file.ts';

/** The token's file name in the data folder. */
export const MCP_TOKEN_FILE = DATA_FOLDER.mcpToken.name;

/**
 * The MCP token of a data folder: read from `<dataDir>/mcp-token`, or made (32 random bytes,
 * base64url) and written there owner-only when the file is missing or empty. A token file that
 * other users may read (a copied folder) is made owner-only again, with a warning.
 *
 * @example
 * const token = await loadMcpToken(dataDir);
 */
export async function loadMcpToken(
  dataDir: string,
  privacy: FilePrivacyOptions = {},
  logger?: PrivacyLogger,
): Promise<string> {
  const path = join(dataDir, MCP_TOKEN_FILE);
  const existing = (await readTextIfExists(path))?.trim();
  if (existing) {
    if ((privacy.platform ?? process.platform) !== 'win32') {
      const { mode } = await stat(path);
      if ((mode & 0o077) !== 0) {
        await chmod(path, 0o600);
        logger?.warn(
          { path },
          `${path} was readable by other users: made it readable by its owner only`,
        );
      }
    }
    return existing;
  }
  if (existing === '') await rm(path, { force: true });
  const token = randomBytes(32).toString('base64url');
  try {
    await createPrivateFile(path, token, { ...privacy, durable: true }, logger);
    return token;
  } catch (error) {
    // Made meanwhile by another process on the same folder: use that one.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return ((await readTextIfExists(path)) ?? '').trim();
  }
}

/**
 * True when an `Authorization` header carries the token (`Bearer <token>`), compared in
 * constant time.
 */
export function hasMcpToken(authorization: string | undefined, token: string): boolean {
  return sameSecret(bearerToken(authorization), token);
}
