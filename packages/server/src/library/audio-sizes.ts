/**
 * The space each class's kept audio takes (`<class-id>/audio.ogg`), for the library's list: read
 * from the class folders when the library looks at them, and told by the running class as its
 * audio is written (so its size may lag a second behind).
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CLASS_FILES } from '../data-folder.ts';

/** Audio sizes by class id. */
export interface AudioSizes {
  /** Bytes of the class's audio; null when it kept none. */
  get(id: string): number | null;
  /** The size of a class's audio as it is written. */
  set(id: string, bytes: number): void;
  /** A deleted class. */
  forget(id: string): void;
  /** Bytes of every class's audio. */
  total(): number;
  /** Reads every class folder's audio size again (the sizes told since stay as told). */
  refresh(): Promise<void>;
}

/** The size of a class folder's audio file, null when there is none (a link is not followed). */
export async function classAudioBytes(folder: string): Promise<number | null> {
  const info = await lstat(join(folder, CLASS_FILES.audio)).catch(() => null);
  return info?.isFile() && info.size > 0 ? info.size : null;
}

/**
 * {@link AudioSizes} of the class folders in `classesDir`.
 *
 * @example
 * const sizes = createAudioSizes(classesDir);
 * await sizes.refresh();
 * sizes.get('20261123-101500-k3f9'); // 4_812_377
 */
export function createAudioSizes(classesDir: string): AudioSizes {
  let sizes = new Map<string, number>();
  let told = new Map<string, number>();
  return {
    get: (id) => told.get(id) ?? sizes.get(id) ?? null,
    set(id, bytes) {
      told.set(id, bytes);
    },
    forget(id) {
      sizes.delete(id);
      told.delete(id);
    },
    total() {
      let sum = 0;
      for (const id of new Set([...sizes.keys(), ...told.keys()]))
        sum += told.get(id) ?? sizes.get(id) ?? 0;
      return sum;
    },
    async refresh() {
      const names = await readdir(classesDir, { withFileTypes: true }).catch(() => []);
      const found = new Map<string, number>();
      for (const entry of names) {
        if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
        const bytes = await classAudioBytes(join(classesDir, entry.name));
        if (bytes !== null) found.set(entry.name, bytes);
      }
      sizes = found;
      // What the folders say now is newer than what was told before the look.
      const stillTold = new Map<string, number>();
      for (const [id, bytes] of told) if (!found.has(id)) stillTold.set(id, bytes);
      told = stillTold;
    },
  };
}
