// ffmpeg and ffprobe as the judges of a kept audio file: does it decode without an error, how
// long does it play, how many streams does it hold.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What ffmpeg says of a file: decode errors ('' for none), its duration (ms) and its streams. */
export async function judgeAudio(
  path: string,
): Promise<{ errors: string; durationMs: number; streams: number }> {
  const decoded = await run('ffmpeg', ['-v', 'error', '-i', path, '-f', 'null', '-']);
  const probed = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration:stream=index',
    '-of',
    'json',
    path,
  ]);
  const info = JSON.parse(probed.stdout) as {
    format: { duration: string };
    streams: unknown[];
  };
  return {
    errors: decoded.stderr.trim(),
    durationMs: Number(info.format.duration) * 1000,
    streams: info.streams.length,
  };
}
