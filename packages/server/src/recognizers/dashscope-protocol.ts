/**
 * The messages of DashScope (Alibaba Cloud Model Studio) real-time speech recognition over its
 * WebSocket duplex API, as fun-asr-realtime speaks it: the client's `run-task` and `finish-task`
 * instructions (JSON text frames; the audio goes as binary frames between them) and the
 * service's `task-started`, `result-generated`, `task-finished` and `task-failed` events. Pure
 * functions: building instructions and reading events; the connection is dashscope-client.ts.
 * packages/server/README.md ("ASR_MODE=dashscope") says which public documentation this follows.
 */

/** The parameters of a recognition task this backend sends. */
export interface DashscopeTaskParameters {
  /** Audio format: raw 16-bit little-endian PCM. */
  format: 'pcm';
  /** Hz; the real-time models take 16000. */
  sample_rate: number;
  /** Keep the task open through long silences (a quiet stretch of a class). */
  heartbeat?: boolean;
  /** The spoken language, e.g. ['zh']; absent: detected. */
  language_hints?: string[];
}

/** A `run-task` instruction: the first frame of every connection. */
export function runTaskInstruction(
  taskId: string,
  model: string,
  parameters: DashscopeTaskParameters,
): string {
  return JSON.stringify({
    header: { action: 'run-task', task_id: taskId, streaming: 'duplex' },
    payload: {
      task_group: 'audio',
      task: 'asr',
      function: 'recognition',
      model,
      parameters,
      input: {},
    },
  });
}

/** A `finish-task` instruction: all audio is sent, the service finalises what it heard. */
export function finishTaskInstruction(taskId: string): string {
  return JSON.stringify({
    header: { action: 'finish-task', task_id: taskId, streaming: 'duplex' },
    payload: { input: {} },
  });
}

/** One recognised sentence of a `result-generated` event. */
export interface DashscopeSentence {
  /** Ms from the start of the task's audio. */
  beginTime: number;
  /** Ms from the start of the task's audio (the time heard so far while not final). */
  endTime: number | undefined;
  text: string;
  /** True for the final text of the sentence; false while it is still being heard. */
  sentenceEnd: boolean;
}

/** What the service said, read from one text frame. */
export type DashscopeEvent =
  | { event: 'task-started'; taskId: string }
  | { event: 'result-generated'; taskId: string; sentence: DashscopeSentence }
  /** A keep-alive result during silence (`heartbeat: true`): nothing to show. */
  | { event: 'heartbeat'; taskId: string }
  | { event: 'task-finished'; taskId: string }
  | { event: 'task-failed'; taskId: string; code: string; message: string }
  /** A frame this client does not understand (kept for the log). */
  | { event: 'unknown'; text: string };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads one text frame of the service. Anything that is not one of the four events (bad JSON,
 * another event, a result without a sentence) is `unknown`, never an exception.
 *
 * @example
 * readDashscopeEvent('{"header":{"event":"task-started","task_id":"t1"},"payload":{}}');
 * // { event: 'task-started', taskId: 't1' }
 */
export function readDashscopeEvent(text: string): DashscopeEvent {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { event: 'unknown', text };
  }
  const header = isObject(message) && isObject(message.header) ? message.header : undefined;
  if (!header || typeof header.event !== 'string') return { event: 'unknown', text };
  const taskId = typeof header.task_id === 'string' ? header.task_id : '';
  switch (header.event) {
    case 'task-started':
    case 'task-finished':
      return { event: header.event, taskId };
    case 'task-failed':
      return {
        event: 'task-failed',
        taskId,
        code: typeof header.error_code === 'string' ? header.error_code : 'UNKNOWN',
        message: typeof header.error_message === 'string' ? header.error_message : '',
      };
    case 'result-generated': {
      const payload = isObject((message as Json).payload)
        ? ((message as Json).payload as Json)
        : {};
      const output = isObject(payload.output) ? payload.output : {};
      const sentence = isObject(output.sentence) ? output.sentence : undefined;
      if (!sentence) return { event: 'unknown', text };
      if (sentence.heartbeat === true) return { event: 'heartbeat', taskId };
      return {
        event: 'result-generated',
        taskId,
        sentence: {
          beginTime: typeof sentence.begin_time === 'number' ? sentence.begin_time : 0,
          endTime: typeof sentence.end_time === 'number' ? sentence.end_time : undefined,
          text: typeof sentence.text === 'string' ? sentence.text : '',
          sentenceEnd: sentence.sentence_end === true,
        },
      };
    }
    default:
      return { event: 'unknown', text };
  }
}

/**
 * True when a `task-failed` code means the class cannot go on as configured — a refused key, an
 * account in arrears, a bad parameter or model — rather than a passing fault worth a reconnect.
 */
export function isFatalTaskFailure(code: string): boolean {
  return /^(InvalidApiKey|AccessDenied|Arrearage|InvalidParameter|BadRequest|ModelNotFound|Model\.|UnsupportedOperation|NoPermission|DataInspectionFailed)/i.test(
    code,
  );
}
