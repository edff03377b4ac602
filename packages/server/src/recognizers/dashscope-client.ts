/**
 * One DashScope real-time recognition task over its WebSocket duplex API: connect with the API
 * key as a bearer token, send `run-task`, wait for `task-started`, stream PCM as binary frames,
 * send `finish-task` and wait for `task-finished`. Sentences and the end are reported through
 * callbacks; every failure is a {@link DashscopeError} saying whether a reconnection may help.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import {
  type DashscopeSentence,
  type DashscopeTaskParameters,
  finishTaskInstruction,
  isFatalTaskFailure,
  readDashscopeEvent,
  runTaskInstruction,
} from './dashscope-protocol.ts';

/** What went wrong with a task. */
export type DashscopeErrorCode =
  /** The handshake was refused with 401/403: the API key. */
  | 'DASHSCOPE_KEY_REFUSED'
  /** The handshake was refused with another status. */
  | 'DASHSCOPE_HANDSHAKE_FAILED'
  /** No connection (DNS, refused, TLS). */
  | 'DASHSCOPE_CONNECTION_FAILED'
  /** The connection closed before the task finished. */
  | 'DASHSCOPE_CONNECTION_LOST'
  /** The service answered `task-failed`. */
  | 'DASHSCOPE_TASK_FAILED'
  /** No `task-started` or `task-finished` in time. */
  | 'DASHSCOPE_TIMEOUT';

const marker = Symbol.for('class-assistant.dashscope-error');

/** A failure of a DashScope task. */
export class DashscopeError extends Error {
  readonly code: DashscopeErrorCode;
  /** Whether a new connection may succeed (a drop, a busy service) or not (a refused key). */
  readonly retryable: boolean;
  /** The handshake's HTTP status, when it was refused. */
  readonly status: number | undefined;
  /** The service's `error_code` (InvalidApiKey, InvalidParameter, …) or the refusal's `code`. */
  readonly serviceCode: string | undefined;
  readonly [marker] = true;

  constructor(
    code: DashscopeErrorCode,
    message: string,
    details: { retryable: boolean; status?: number; serviceCode?: string },
  ) {
    super(message);
    this.name = 'DashscopeError';
    this.code = code;
    this.retryable = details.retryable;
    this.status = details.status;
    this.serviceCode = details.serviceCode;
  }
}

/** True for a {@link DashscopeError} (also across package copies). */
export function isDashscopeError(error: unknown): error is DashscopeError {
  return typeof error === 'object' && error !== null && marker in error;
}

/** Options of {@link openDashscopeTask}. */
export interface DashscopeTaskOptions {
  /** `wss://dashscope.aliyuncs.com/api-ws/v1/inference` or a test server's address. */
  url: string;
  apiKey: string;
  model: string;
  parameters: DashscopeTaskParameters;
  /** Each `result-generated` sentence (heartbeats are left out). */
  onSentence(sentence: DashscopeSentence): void;
  /** Once, when the task is over: without an error after `task-finished`. */
  onEnd(error: DashscopeError | undefined): void;
  /** Longest wait for the handshake and `task-started`. Default 10 s. */
  startTimeoutMs?: number;
}

/** A running task. */
export interface DashscopeTask {
  readonly taskId: string;
  /** Sends PCM as one binary frame; rejects once the task is over. */
  sendAudio(pcm: Uint8Array): Promise<void>;
  /** Sends `finish-task` and resolves at `task-finished` (rejects on failure or after `timeoutMs`). */
  finish(timeoutMs: number): Promise<void>;
  /** Closes the connection now (no `onEnd`). */
  close(): void;
}

/**
 * Opens a task: resolves once the service answered `task-started`; rejects with a
 * {@link DashscopeError} when the key is refused, the service cannot be reached or the task
 * fails to start.
 *
 * @example
 * const task = await openDashscopeTask({ url, apiKey, model: 'fun-asr-realtime',
 *   parameters: { format: 'pcm', sample_rate: 16000 }, onSentence, onEnd });
 * await task.sendAudio(pcm);
 * await task.finish(8000);
 */
export function openDashscopeTask(options: DashscopeTaskOptions): Promise<DashscopeTask> {
  // The documented task id: 32 hexadecimal characters.
  const taskId = randomUUID().replaceAll('-', '');
  const socket = new WebSocket(options.url, {
    headers: { Authorization: `bearer ${options.apiKey}` },
    handshakeTimeout: options.startTimeoutMs ?? 10_000,
  });
  let started = false;
  let ended = false;
  let closedByUs = false;
  let finishing: { resolve(): void; reject(error: DashscopeError): void } | undefined;

  return new Promise<DashscopeTask>((resolve, reject) => {
    const startTimer = setTimeout(() => {
      fail(
        new DashscopeError('DASHSCOPE_TIMEOUT', 'no task-started within the start timeout', {
          retryable: true,
        }),
      );
      socket.terminate();
    }, options.startTimeoutMs ?? 10_000);

    /** Ends the task once: the start fails, or a started task reports its end. */
    const fail = (error: DashscopeError | undefined) => {
      if (ended) return;
      ended = true;
      clearTimeout(startTimer);
      if (!started) {
        reject(
          error ??
            new DashscopeError(
              'DASHSCOPE_CONNECTION_LOST',
              'the connection closed before the task started',
              {
                retryable: true,
              },
            ),
        );
        return;
      }
      if (error) finishing?.reject(error);
      else finishing?.resolve();
      if (!closedByUs) options.onEnd(error);
    };

    socket.on('unexpected-response', (request, response) => {
      const status = response.statusCode ?? 0;
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        if (body.length < 2000) body += chunk;
      });
      response.on('end', () => {
        request.destroy();
        let serviceCode: string | undefined;
        let detail = body.trim().slice(0, 300);
        try {
          const parsed = JSON.parse(body) as { code?: unknown; message?: unknown };
          if (typeof parsed.code === 'string') serviceCode = parsed.code;
          if (typeof parsed.message === 'string') detail = parsed.message;
        } catch {
          // Not JSON: the text itself is the detail.
        }
        const keyRefused = status === 401 || status === 403;
        fail(
          new DashscopeError(
            keyRefused ? 'DASHSCOPE_KEY_REFUSED' : 'DASHSCOPE_HANDSHAKE_FAILED',
            `HTTP ${status}${serviceCode ? ` ${serviceCode}` : ''}${detail ? `: ${detail}` : ''}`,
            {
              retryable: !keyRefused && (status === 429 || status >= 500),
              status,
              ...(serviceCode ? { serviceCode } : {}),
            },
          ),
        );
      });
      response.on('error', () => request.destroy());
    });

    socket.on('error', (error) => {
      fail(
        new DashscopeError(
          started ? 'DASHSCOPE_CONNECTION_LOST' : 'DASHSCOPE_CONNECTION_FAILED',
          error.message,
          { retryable: true },
        ),
      );
    });

    socket.on('open', () => {
      socket.send(runTaskInstruction(taskId, options.model, options.parameters));
    });

    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      const event = readDashscopeEvent(data.toString());
      switch (event.event) {
        case 'task-started':
          if (started) return;
          started = true;
          clearTimeout(startTimer);
          resolve(task);
          return;
        case 'result-generated':
          if (started && !ended) options.onSentence(event.sentence);
          return;
        case 'task-finished':
          fail(undefined);
          closedByUs = true;
          socket.close(1000);
          return;
        case 'task-failed':
          fail(
            new DashscopeError(
              'DASHSCOPE_TASK_FAILED',
              `${event.code}${event.message ? `: ${event.message}` : ''}`,
              { retryable: !isFatalTaskFailure(event.code), serviceCode: event.code },
            ),
          );
          socket.close(1000);
          return;
        default:
          return;
      }
    });

    socket.on('close', (code) => {
      fail(
        new DashscopeError(
          'DASHSCOPE_CONNECTION_LOST',
          `the connection closed (code ${code}) before the task finished`,
          { retryable: true },
        ),
      );
    });

    const task: DashscopeTask = {
      taskId,
      sendAudio(pcm) {
        if (ended || socket.readyState !== WebSocket.OPEN) {
          return Promise.reject(
            new DashscopeError('DASHSCOPE_CONNECTION_LOST', 'the task is over', {
              retryable: true,
            }),
          );
        }
        return new Promise<void>((done, refuse) => {
          socket.send(pcm, { binary: true }, (error) => {
            if (error) {
              refuse(
                new DashscopeError('DASHSCOPE_CONNECTION_LOST', error.message, { retryable: true }),
              );
            } else done();
          });
        });
      },
      finish(timeoutMs) {
        if (ended) {
          return Promise.reject(
            new DashscopeError('DASHSCOPE_CONNECTION_LOST', 'the task is over', {
              retryable: true,
            }),
          );
        }
        return new Promise<void>((done, refuse) => {
          const timer = setTimeout(() => {
            refuse(
              new DashscopeError('DASHSCOPE_TIMEOUT', `no task-finished within ${timeoutMs} ms`, {
                retryable: true,
              }),
            );
            closedByUs = true;
            socket.terminate();
          }, timeoutMs);
          finishing = {
            resolve: () => {
              clearTimeout(timer);
              done();
            },
            reject: (error) => {
              clearTimeout(timer);
              refuse(error);
            },
          };
          socket.send(finishTaskInstruction(taskId));
        });
      },
      close() {
        closedByUs = true;
        if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
        else socket.close(1000);
      },
    };
  });
}
