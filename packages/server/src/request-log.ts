// What the backend logs about each request: little while things go well, one line per second
// per kind of refusal when something floods it.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { ServerError } from './errors.ts';
import { displayName } from './files.ts';
import { createRepeatCollapser, type RepeatCollapser } from './repeat-collapser.ts';

/** What a refused request's log line says besides its status. */
interface Refusal {
  code: string;
  message: string;
  level: 'info' | 'warn';
  details: Record<string, string>;
}

const refusals = new WeakMap<FastifyRequest, Refusal>();

/**
 * Records why `request` is answered with `error`, for its one log line (written by
 * {@link QuietRequestLog} when the answer is out). `details` (a Host, an Origin) come from the
 * request, so they are cut to 200 characters. `warn` for refusals that may be an attack.
 */
export function noteRefusal(
  request: FastifyRequest,
  error: ServerError,
  options: { level?: 'info' | 'warn'; details?: Record<string, string | undefined> } = {},
): void {
  const details: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.details ?? {})) {
    if (value !== undefined) details[key] = displayName(value, 200);
  }
  refusals.set(request, {
    code: error.code,
    message: error.message,
    level: options.level ?? 'info',
    details,
  });
}

/**
 * Request log lines at debug level (the UI polls /api/health and status), failed requests at
 * info, server errors at error: the console and the startup log stay readable during a class.
 *
 * A refused request (any answer from 400 to 599 but 500) is one line with its code and reason;
 * lines of the same kind (error code, else status) are written at most once per second each,
 * the later ones of that second as one line with their count (`collapsed`): a web page sending
 * thousands of refused requests costs the log a few lines a second.
 */
export class QuietRequestLog extends LogController {
  readonly refused: RepeatCollapser;

  constructor(collapser: RepeatCollapser = createRepeatCollapser()) {
    super();
    this.refused = collapser;
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { res: reply, responseTime: Math.round(reply.elapsedTime) };
    // 502-504 are the LLM's or a recognizer's trouble, already explained in the answer.
    if (error || reply.statusCode === 500) {
      reply.log.error({ ...line, err: error }, 'request failed');
      return;
    }
    if (reply.statusCode < 400) {
      reply.log.debug(line, 'request completed');
      return;
    }
    const refusal = refusals.get(request);
    const logger = reply.log;
    const fields = {
      res: { statusCode: reply.statusCode },
      responseTime: line.responseTime,
      ...(refusal ? { code: refusal.code, ...refusal.details } : {}),
      url: displayName(request.routeOptions.url ?? request.url.split('?')[0] ?? '', 200),
    };
    const message = refusal ? `request refused: ${refusal.message}` : 'request refused';
    const level = refusal?.level ?? 'info';
    this.refused.write(refusal?.code ?? `HTTP ${reply.statusCode}`, (collapsed) => {
      if (collapsed === 0) logger[level](fields, message);
      else
        logger[level](
          { ...fields, collapsed },
          `${message} (${collapsed} like it in the last second)`,
        );
    });
  }
}
