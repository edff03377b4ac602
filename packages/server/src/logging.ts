import { createWriteStream, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { maskSecretsInText } from './settings/secret-rules.ts';

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};

/** Fields every pino line has; the rest are shown as key=value. */
const HIDDEN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId']);

/** Turns pino's JSON lines into short human lines for the console. */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now());
  const clock = time.toTimeString().slice(0, 8);
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level);
  const extras = Object.entries(entry)
    .filter(([key]) => !HIDDEN.has(key))
    .map(([key, value]) => {
      if (key === 'err' && value && typeof value === 'object') {
        const error = value as { type?: string; message?: string; code?: string };
        return `error=${error.code ?? error.type ?? 'Error'}: ${error.message ?? ''}`;
      }
      if (key === 'req' && value && typeof value === 'object') {
        const request = value as { method?: string; url?: string };
        return `${request.method} ${request.url}`;
      }
      if (key === 'res' && value && typeof value === 'object') {
        return `→ ${(value as { statusCode?: number }).statusCode}`;
      }
      return `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
    });
  return `${clock} ${level} ${String(entry.msg ?? '')}${extras.length > 0 ? `  ${extras.join(' ')}` : ''}\n`;
}

/** Options of {@link createProcessLogger}. */
export interface ProcessLoggerOptions {
  level: string;
  /** The startup log file (data/_startup.log); the previous run's is kept as `_startup.log.1`. */
  file: string;
  /** Where human-readable lines go (default: stdout). */
  console?: NodeJS.WritableStream;
}

/**
 * The backend process's logger: JSON lines to the startup log file (the packaged build runs
 * without a console, so this file is where diagnostics are read) and short lines to the console.
 */
export function createProcessLogger(options: ProcessLoggerOptions): {
  logger: Logger;
  flush(): Promise<void>;
} {
  mkdirSync(dirname(options.file), { recursive: true });
  try {
    renameSync(options.file, `${options.file}.1`);
  } catch {
    // First run.
  }
  const file = createWriteStream(options.file, { flags: 'w' });
  const target = options.console ?? process.stdout;
  // A line may quote a setting or an error: an address's password or a key in it is masked in
  // the file and on the console alike.
  const fileStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      file.write(maskSecretsInText(chunk.toString('utf8')), callback);
    },
  });
  const consoleStream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      target.write(formatLogLine(maskSecretsInText(chunk.toString('utf8').trimEnd())));
      callback();
    },
  });
  const level = options.level === 'silent' ? 'silent' : options.level;
  const logger = pino(
    { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.epochTime },
    pino.multistream([
      { level: level === 'silent' ? 'fatal' : (level as pino.Level), stream: fileStream },
      { level: level === 'silent' ? 'fatal' : (level as pino.Level), stream: consoleStream },
    ]),
  );
  return {
    logger,
    flush: () =>
      new Promise((resolve) => {
        fileStream.end(() => file.end(() => resolve()));
      }),
  };
}
