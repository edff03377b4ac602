// Vitest global setup: every test run gets its own temp folder (TMPDIR, read by os.tmpdir() in
// the test workers and the processes they spawn) and removes it at the end, so the many
// temp files, folders and pipes the tests make never pile up in the system temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'class-assistant-tests-'));
  process.env.TMPDIR = folder;
  process.env.TEMP = folder;
  process.env.TMP = folder;
  return () => rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
}
