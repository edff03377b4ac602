import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { openRotatingLogFile } from './rotating-log-file.ts';
import { maskSecretsInText } from './secret-rules.ts';

/** Most bytes of one startup log file; with the earlier ones kept, at most 3 MiB in all. */
const LOG_FILE_MAX_BYTES = 1024 * 1024;

/** Earlier startup log files kept: `_startup.log.1` (the newest) and `_startup.log.2`. */
const LOG_FILES_KEPT = 2;

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
function formatLogLine(line: string): string {
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
  /**
   * The startup log file (data/_startup.log). It is capped at {@link LOG_FILE_MAX_BYTES}: a full
   * one, and the previous run's at start, move to `.1` (then `.2`; older ones are removed).
   */
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
  const file = openRotatingLogFile({
    path: options.file,
    maxBytes: LOG_FILE_MAX_BYTES,
    kept: LOG_FILES_KEPT,
  });
  const target = options.console ?? process.stdout;
  // A line may quote a setting or an error: an address's password or a key in it is masked in
  // the file and on the console alike.
  const fileStream = { write: (line: string) => file.write(maskSecretsInText(line)) };
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
    // Every line is written when it is logged: closing the file is all that is left.
    flush: async () => file.close(),
  };
}
