import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolbox, isToolError } from '@class-assistant/agent-std';
import { describe, expect, it } from 'vitest';
import { DATA_FOLDER, type DataKind, dataPaths } from '../data-folder.ts';
import { createClassFileTools } from './class-file-tools.ts';

const MARK = 'never-for-the-agent-5c1e';
const CLASS_ID = '20261123-101500-k3f9';

/**
 * A data folder with a file at every path of the layout: class content readable by its rule,
 * and for every other entry (secrets, logs, the index, models, settings, temporary files) the
 * file itself or, for a folder, files in it named as class content would be.
 */
async function fullDataFolder(): Promise<{ dataDir: string; never: Map<string, DataKind> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'class-files-'));
  const paths = dataPaths(dataDir);
  const never = new Map<string, DataKind>();
  for (const [key, entry] of Object.entries(DATA_FOLDER)) {
    const path = paths[key as keyof typeof DATA_FOLDER];
    if (entry.kind === 'class-content') {
      if (!entry.folder) await writeFile(path, 'class content\n');
      else if (entry.files) {
        await mkdir(path, { recursive: true });
        await writeFile(join(path, `week1${entry.files}`), 'class content\n');
      } else {
        await mkdir(join(path, CLASS_ID), { recursive: true });
        await writeFile(join(path, CLASS_ID, 'notes.md'), 'class content\n');
      }
      continue;
    }
    if (entry.folder) {
      await mkdir(path, { recursive: true });
      for (const name of ['notes.md', 'material.txt']) {
        await writeFile(join(path, name), `${MARK}\n`);
        never.set(`${entry.name}/${name}`, entry.kind);
      }
    } else {
      await writeFile(path, `${MARK}\n`);
      never.set(entry.name, entry.kind);
    }
  }
  return { dataDir, never };
}

describe('class_files and class_file_read: class content only, from the layout', () => {
  it('refuse a path of every kind that is not class content, and list none of them', async () => {
    const { dataDir, never } = await fullDataFolder();
    // Every kind the agent must never read is covered.
    expect(new Set(never.values())).toEqual(
      new Set(['settings', 'secret', 'log', 'index', 'model', 'temporary']),
    );
    const toolbox = createToolbox({ uses: [], tools: createClassFileTools(dataDir) });

    const listed = (await toolbox.call('class_files', {})).files;
    expect(listed).toEqual([
      'class_transcript.txt',
      'current_class_material.txt',
      'cite/week1.txt',
      'summaries/week1.md',
      `classes/${CLASS_ID}/notes.md`,
    ]);
    for (const path of listed) {
      expect((await toolbox.call('class_file_read', { path })).text).toBe('class content\n');
    }

    for (const [path, kind] of never) {
      const outcome = await toolbox.call('class_file_read', { path }).then(
        (answer) => answer.text,
        (error: unknown) => error,
      );
      expect(isToolError(outcome) && outcome.code, `${path} (${kind})`).toBe('TOOL_POLICY_DENIED');
    }
  });
});
