// The startup log's file: capped in size, with a few earlier files kept.
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Options of {@link openRotatingLogFile}. */
export interface RotatingLogFileOptions {
  /** The current file (e.g. data/_startup.log). */
  path: string;
  /** Most bytes one file holds; a line that would pass it starts a new file. */
  maxBytes: number;
  /** Earlier files kept beside it: `<path>.1` (the newest) to `<path>.<kept>`. */
  kept: number;
}

/** An open rotating log file. */
export interface RotatingLogFile {
  /** Appends text (whole lines) to the current file; never throws. */
  write(text: string): void;
  /** Closes the file; later writes are dropped. */
  close(): void;
}

/**
 * Opens a log file that never grows past `maxBytes`: a line that would pass the cap moves the
 * file to `<path>.1` (`.1` to `.2`, and so on; the oldest beyond `kept` is removed) and starts
 * an empty one. Opening rotates too, so the previous run's log is `<path>.1`. At most
 * `(kept + 1) * maxBytes` bytes on disk, whatever is logged.
 *
 * Writes are synchronous: a line is in the file when `write` returns (a backend killed right
 * after it loses nothing), and rotating needs no coordination with writes still in flight. A
 * line longer than the cap is cut to it. A failing disk makes the log drop lines, never the
 * backend fail.
 *
 * @example
 * const file = openRotatingLogFile({ path: 'data/_startup.log', maxBytes: 1024 * 1024, kept: 2 });
 * file.write('{"msg":"ready"}\n');
 * file.close();
 */
export function openRotatingLogFile(options: RotatingLogFileOptions): RotatingLogFile {
  const { path, maxBytes, kept } = options;
  mkdirSync(dirname(path), { recursive: true });
  let fd: number | undefined;
  let size = 0;
  let closed = false;

  const rotate = () => {
    if (fd !== undefined) {
      closeQuietly(fd);
      fd = undefined;
    }
    rmSync(`${path}.${kept}`, { force: true });
    for (let index = kept - 1; index >= 1; index--)
      renameIfExists(`${path}.${index}`, `${path}.${index + 1}`);
    if (kept >= 1) renameIfExists(path, `${path}.1`);
    else rmSync(path, { force: true });
    fd = openSync(path, 'w');
    size = 0;
  };

  try {
    rotate();
  } catch {
    // An unwritable folder: the log is lost, not the backend (it says so on the console).
    fd = undefined;
  }

  return {
    write(text) {
      if (closed) return;
      let bytes = Buffer.from(text, 'utf8');
      if (bytes.length > maxBytes)
        bytes = Buffer.concat([bytes.subarray(0, maxBytes - 1), Buffer.from('\n')]);
      try {
        if (fd === undefined || (size > 0 && size + bytes.length > maxBytes)) rotate();
        if (fd === undefined) return;
        writeSync(fd, bytes);
        size += bytes.length;
      } catch {
        // A full or failing disk: this line is dropped.
      }
    },
    close() {
      if (closed) return;
      closed = true;
      if (fd !== undefined) closeQuietly(fd);
      fd = undefined;
    },
  };
}

function renameIfExists(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed by a failing disk.
  }
}
