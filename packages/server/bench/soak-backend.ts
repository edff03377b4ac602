// The backend of the soak benchmark (bench/soak.ts): started as the bin starts it (startServer:
// the same settings file, data folder and `_startup.log`), in a child forked with --expose-gc
// and an IPC channel. It counts the lines the class writes and, when the class starts and every
// `sampleEvery` lines, reports the process's CPU time so far, its resident memory after a full
// garbage collection and the size of its log file. Collections run between two CPU readings, so
// their time is not charged to the lines.
//   argv: <port> <settings file> <data folder> <lines> <sampleEvery>
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parseCli } from '../src/cli-options.ts';
import { startServer } from '../src/server.ts';

/** One reading, taken when `lines` lines had been written. */
export interface SoakSample {
  lines: number;
  /** CPU time (user + system) used since the start of the class, µs, collections excluded. */
  cpuMicros: number;
  /** Resident memory after `gc()`, bytes. */
  rssAfterGc: number;
  /** Size of `_startup.log`, bytes. */
  logBytes: number;
}

/** Messages from the child to bench/soak.ts. */
export type SoakMessage =
  | { type: 'ready'; url: string }
  | { type: 'done'; samples: SoakSample[]; folds: number };

const [port, settingsFile, dataDir, linesArg, everyArg] = process.argv.slice(2);
const total = Number(linesArg);
const every = Number(everyArg);
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect || !process.send) throw new Error('soak-backend: fork it with --expose-gc');
const send = (message: SoakMessage) => process.send!(message);

const command = parseCli([
  '--port',
  port!,
  '--settings-file',
  settingsFile!,
  '--data-dir',
  dataDir!,
]);
if (command.kind !== 'run') throw new Error('soak-backend: bad arguments');
const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const server = await startServer(command.options, { console: quiet });
const logFile = join(dataDir!, '_startup.log');

const cpuNow = () => {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
};
const samples: SoakSample[] = [];
let lines = 0;
let folds = 0;
let cpuStart = 0;
// CPU spent in the collections so far, left out of the lines' cost.
let collecting = 0;

server.app.classAssistant.hub.subscribe((event) => {
  if (event.name === 'monitor.changed' && event.data.state === 'running' && cpuStart === 0) {
    collect();
    cpuStart = cpuNow();
    samples.push({
      lines: 0,
      cpuMicros: 0,
      rssAfterGc: process.memoryUsage.rss(),
      logBytes: statSync(logFile).size,
    });
  }
  if (event.name === 'history.folded') folds += 1;
  if (event.name !== 'line.appended' || lines >= total) return;
  lines += 1;
  if (lines % every !== 0) return;
  const before = cpuNow();
  const cpuMicros = before - cpuStart - collecting;
  collect();
  collecting += cpuNow() - before;
  samples.push({
    lines,
    cpuMicros,
    rssAfterGc: process.memoryUsage.rss(),
    logBytes: statSync(logFile).size,
  });
  if (lines === total) send({ type: 'done', samples, folds });
});

process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stop') return;
  void server.close().then(() => process.exit(0));
});
send({ type: 'ready', url: server.url });
