/**
 * Keeps the audio a class hears in its folder (Ogg Opus, `audio.ogg`), and says where in that
 * audio each moment of the class lies. The recognizer's source hands every chunk it delivers to
 * {@link AudioKeeper.hear}; the samples are posted to a worker thread that encodes and writes
 * them, so the event loop never encodes. Paused audio is never delivered, so it is not kept; a
 * class that goes on after a crash appends to the same file, its positions after what was kept.
 */
import { stat } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { workerUrl } from '../assets.ts';
import type { AudioChunk } from '../audio/audio-source.ts';
import { createRecordingPositions } from '../audio/recording-position.ts';
import type { KeeperReply, KeeperRequest } from './keeper-messages.ts';

/** Where the kept audio goes, and who is told its size. */
export interface AudioTarget {
  /** The class's audio file. */
  path: string;
  /** Told the file's size as pages are written (about every second) and when it is closed. */
  sized?(bytes: number): void;
}

/** Options of {@link createAudioKeeper}. */
export interface AudioKeeperOptions {
  /** Told once when keeping fails (the class goes on without its audio). */
  onError?(message: string): void;
  /** Page and sync intervals of the file (ms), for tests. */
  pageMs?: number;
  syncMs?: number;
}

/** The audio of one class being kept. */
export interface AudioKeeper {
  /** A chunk the recognizer hears (held until {@link open}). */
  hear(chunk: AudioChunk): void;
  /**
   * Starts writing to `target` (the audio heard so far first). Resolves once positions are
   * known: an existing file is opened to go on with, its audio counted before this class's.
   */
  open(target: AudioTarget): Promise<void>;
  /**
   * Where class-clock time `atMs` lies in the kept audio, ms (no time: the end of the audio
   * heard so far); `undefined` while no audio was heard.
   */
  positionAt(atMs?: number): number | undefined;
  /** Writes the rest, closes the file and ends the worker. */
  close(): Promise<void>;
}

/** Audio held before the file opens: enough for a slow start, bounded all the same. */
const MAX_HELD_CHUNKS = 3000;

/**
 * Creates an {@link AudioKeeper}. Nothing is started until audio is heard and a target given:
 * a class without audio (the demo mode) makes no worker and no file.
 *
 * @example
 * const keeper = createAudioKeeper();
 * // recognizer context: onAudio: (chunk) => keeper.hear(chunk)
 * await keeper.open({ path: join(classFolder, CLASS_FILES.audio) });
 * keeper.positionAt(event.startMs); // → ms into audio.ogg
 */
export function createAudioKeeper(options: AudioKeeperOptions = {}): AudioKeeper {
  const positions = createRecordingPositions();
  let heard = false;
  let resumedMs = 0;
  let target: AudioTarget | undefined;
  let worker: Worker | undefined;
  let held: Int16Array[] = [];
  let failed = false;
  let closing: Promise<void> | undefined;
  let ready: Promise<void> | undefined;
  let closed: ((bytes: number) => void) | undefined;

  const fail = (message: string) => {
    if (failed) return;
    failed = true;
    held = [];
    options.onError?.(message);
    closed?.(0);
    void worker?.terminate();
  };

  const post = (request: KeeperRequest) => {
    if (!worker || failed) return;
    if (request.type === 'audio')
      worker.postMessage(request, [request.samples.buffer as ArrayBuffer]);
    else worker.postMessage(request);
  };

  const startWorker = (path: string) => {
    if (worker) return ready;
    const started = new Worker(workerUrl('audio-keeper-worker'));
    worker = started;
    started.unref();
    ready = new Promise<void>((resolve) => {
      started.on('message', (reply: KeeperReply) => {
        switch (reply.type) {
          case 'ready':
            resumedMs = reply.resumedMs;
            resolve();
            return;
          case 'written':
            target?.sized?.(reply.bytes);
            return;
          case 'closed':
            closed?.(reply.bytes);
            return;
          case 'failed':
            fail(reply.message);
            resolve();
            return;
        }
      });
      started.on('error', (error) => {
        fail(error.message);
        resolve();
      });
      started.on('exit', () => {
        if (!closing) fail('the audio worker stopped');
        resolve();
      });
    });
    post({
      type: 'open',
      path,
      ...(options.pageMs ? { pageMs: options.pageMs } : {}),
      ...(options.syncMs ? { syncMs: options.syncMs } : {}),
    });
    for (const samples of held) post({ type: 'audio', samples });
    held = [];
    return ready;
  };

  return {
    hear(chunk) {
      heard = true;
      positions.note(chunk);
      if (failed || closing) return;
      // A copy: the source may reuse its buffer; the copy's buffer moves to the worker.
      const samples = chunk.samples.slice();
      if (!worker && target) void startWorker(target.path);
      if (worker) post({ type: 'audio', samples });
      else if (held.length < MAX_HELD_CHUNKS) held.push(samples);
    },
    async open(given) {
      target = given;
      // A file to go on with: its length must be known before the first line is placed.
      const exists = await stat(given.path).then(
        (info) => info.isFile() && info.size > 0,
        () => false,
      );
      if (exists || held.length > 0) await startWorker(given.path);
    },
    positionAt(atMs) {
      if (!heard) return undefined;
      const position = atMs === undefined ? positions.reachedMs() : positions.positionAt(atMs);
      return position === undefined ? undefined : Math.round(resumedMs + position);
    },
    close() {
      if (closing) return closing;
      closing = new Promise<void>((resolve) => {
        if (!worker || failed) {
          resolve();
          return;
        }
        const running = worker;
        const timer = setTimeout(() => {
          void running.terminate();
          resolve();
        }, 30_000);
        timer.unref();
        closed = (bytes) => {
          clearTimeout(timer);
          if (bytes > 0) target?.sized?.(bytes);
          resolve();
        };
        running.postMessage({ type: 'close' } satisfies KeeperRequest);
      });
      return closing;
    },
  };
}
