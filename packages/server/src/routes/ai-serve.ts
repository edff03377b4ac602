import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AgentRunOptions } from '../agent/class-agent.ts';
import { errorBody, isServerError, ServerError } from '../errors.ts';
import { openSse } from '../events/sse.ts';
import { requestLanguage } from '../language.ts';
import type { AiCallOptions } from '../llm/class-ai.ts';
import type { LlmService } from '../llm/llm-client.ts';
import { errors } from './schemas.ts';

/** Error responses of the LLM routes. */
export const LLM_ERRORS = errors(400, 409, 429, 502, 503, 504);

/** How the `/stream` variant of an LLM route answers (for its documentation). */
export const STREAM_DESCRIPTION =
  'Server-sent events: `text.delta` `{text}` as the answer is generated (the follow-up chats, which look things up with the class agent’s tools, also send `tool.called` `{id, name, arguments}` as each lookup starts), then `end` with the same body as the non-streamed route, or `error.raised` `{status:"error", code, message}`. A missing LLM configuration is answered before the stream opens (503 LLM_NOT_CONFIGURED).';

/** How a feature runs: streamed pieces, the class agent's tool calls, cancellation. */
export interface AiRunOptions extends AiCallOptions, Pick<AgentRunOptions, 'onToolCall'> {}

/** The names of the streamed events of a route: its pieces of text and its end. */
export interface StreamEventNames {
  delta: string;
  end: string;
}

/**
 * Runs an LLM feature as JSON, or as server-sent events when `streamed`: `text.delta` per piece
 * of the answer (`tool.called` per tool call of the class agent), then `end` with the result or
 * `error.raised` with the error body (`names` renames the delta and end events). A missing LLM
 * configuration is refused before anything is sent.
 */
export async function serveAi<Result extends object>(
  llm: LlmService,
  request: FastifyRequest,
  reply: FastifyReply,
  streamed: boolean,
  run: (options: AiRunOptions) => Promise<Result>,
  names: StreamEventNames = { delta: 'text.delta', end: 'end' },
): Promise<Result | undefined> {
  llm.assertConfigured();
  if (!streamed) return run({});
  const stream = openSse(request, reply);
  try {
    const result = await run({
      onDelta: (text) => stream.send(names.delta, { text }),
      onToolCall: (call) => stream.send('tool.called', call),
      signal: stream.signal,
    });
    stream.send(names.end, result);
  } catch (error) {
    const known = isServerError(error)
      ? error
      : new ServerError('INTERNAL_ERROR', 'Internal error; the server log has the details.');
    if (!isServerError(error)) request.log.error({ err: error }, 'streamed AI request failed');
    stream.send('error.raised', errorBody(known, requestLanguage(request)));
  }
  stream.end();
  return undefined;
}
