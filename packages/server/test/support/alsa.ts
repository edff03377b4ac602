// A microphone for machines without a sound card: ALSA's `file` plugin as the default capture
// device, reading from a file or a named pipe. The audio then goes through the real stack —
// ALSA, PortAudio, naudiodon's addon, the capture child process — exactly as from a microphone.
// ALSA reads ~/.asoundrc, so a process gets this device by running with HOME pointing here.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { type FileHandle, mkdir, mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A HOME folder whose ALSA default capture device reads `infile` (raw s16le). */
export interface FakeAlsaHome {
  home: string;
  /** The process environment that uses it. */
  environment: NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

/** Creates a HOME with an .asoundrc making `infile` the default capture device. */
export async function fakeAlsaHome(infile: string): Promise<FakeAlsaHome> {
  const home = await mkdtemp(join(tmpdir(), 'alsa-home-'));
  await mkdir(home, { recursive: true });
  await writeFile(
    join(home, '.asoundrc'),
    `pcm.!default {\n  type file\n  slave.pcm "null"\n  file "/dev/null"\n  infile "${infile}"\n  format "raw"\n}\n`,
  );
  return {
    home,
    environment: { ...process.env, HOME: home },
    remove: () => rm(home, { recursive: true, force: true }),
  };
}

/**
 * A named pipe fed at real-time pace: ALSA's null device has no clock, so the writer is the
 * clock, as a real microphone's hardware is. After the audio it keeps writing quiet noise until
 * stopped (ALSA would read an endless stream of zeros once the pipe closes). PortAudio opens the
 * device more than once (probing, then capturing): each time the reader goes away the writer
 * waits for the next one and starts the audio again from the beginning.
 */
export interface RealtimePipe {
  path: string;
  /** Starts serving readers (returns at once). */
  start(): void;
  /** How many times a reader connected. */
  readers(): number;
  stop(): Promise<void>;
}

/** Makes a named pipe that will carry `samples` (16 kHz mono) at real time. */
export async function realtimePipe(samples: Int16Array): Promise<RealtimePipe> {
  const folder = await mkdtemp(join(tmpdir(), 'alsa-pipe-'));
  const path = join(folder, 'microphone.raw');
  await run('mkfifo', [path]);
  const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  const chunk = 3200;
  const quiet = new Uint8Array(chunk);
  for (let index = 0; index < quiet.length; index += 2) quiet[index] = (index * 7919) % 41;
  let stopped = false;
  let connected = 0;
  let opening: Promise<FileHandle> | undefined;
  let handle: FileHandle | undefined;
  let serving: Promise<void> | undefined;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  const serve = async () => {
    while (!stopped) {
      opening = open(path, 'w');
      handle = await opening;
      opening = undefined;
      if (stopped) break;
      connected += 1;
      const begin = performance.now();
      let position = 0;
      let sent = 0;
      try {
        while (!stopped) {
          const due = Math.floor((performance.now() - begin) / 100) + 1;
          while (sent < due && !stopped) {
            const piece =
              position < bytes.byteLength ? bytes.subarray(position, position + chunk) : quiet;
            position += piece.byteLength;
            sent += 1;
            await handle.write(piece);
          }
          await sleep(20);
        }
      } catch {
        // The reader went away (EPIPE): wait for the next one.
      }
      await handle.close().catch(() => undefined);
      handle = undefined;
    }
  };

  return {
    path,
    start() {
      serving ??= serve();
    },
    readers: () => connected,
    async stop() {
      stopped = true;
      const pending = opening;
      if (pending) {
        // Nobody holds the pipe open for reading: do it, so the blocked open() returns.
        const reader = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
        await pending.then((writer) => writer.close()).catch(() => undefined);
        await reader.close();
      }
      await serving?.catch(() => undefined);
      await rm(folder, { recursive: true, force: true });
    },
  };
}
