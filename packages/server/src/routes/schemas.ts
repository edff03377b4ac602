import { z } from 'zod';
import { operationIdOf } from './openapi.ts';

/** The error body of every route: `{status: "error", code, message}` (docs/architecture.md). */
export const ErrorSchema = z
  .object({
    status: z.literal('error'),
    code: z.string().describe('Stable error code, e.g. LLM_NOT_CONFIGURED, UPLOAD_ENCRYPTED.'),
    message: z.string().describe('What went wrong and what to do, for the student.'),
    detail: z.string().describe('Same as message, for clients of the original FastAPI backend.'),
    field: z.string().optional().describe('The request or settings field at fault.'),
    hint: z.string().optional(),
    technical: z
      .string()
      .optional()
      .describe(
        "The technical cause (a system's or a service's own words, e.g. an ALSA or DNS error), " +
          'for a "details" disclosure; `message` says what happened and what to do without it.',
      ),
    fields: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({
    id: 'Error',
    examples: [
      {
        status: 'error',
        code: 'LLM_NOT_CONFIGURED',
        message: 'The AI features need an OpenAI-compatible LLM: set LLM_API_KEY in the settings.',
        detail: 'The AI features need an OpenAI-compatible LLM: set LLM_API_KEY in the settings.',
        field: 'LLM_API_KEY',
      },
    ],
  });

/** Error responses for a route's schema, by status. */
export function errors(...statuses: number[]): Record<number, typeof ErrorSchema> {
  const result: Record<number, typeof ErrorSchema> = {};
  for (const status of [...new Set([...statuses, 403, 500])]) result[status] = ErrorSchema;
  return result;
}

/** A `{status, message}` answer. */
export const StatusMessageSchema = z.object({
  status: z.string(),
  message: z.string(),
});

/** One turn of a follow-up chat, as the original client sends it. */
export const ChatTurnSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.string().max(20_000),
});

/**
 * A WebSocket route in the OpenAPI document (@fastify/websocket hides them): GET with the upgrade
 * answer and the Host/Origin refusal every route has.
 */
export function webSocketDocumentation(
  path: string,
  summary: string,
  description: string,
  responses: Record<string, { description: string }> = {},
) {
  return {
    get: {
      operationId: operationIdOf('GET', path),
      tags: ['live'],
      summary,
      description,
      responses: {
        '101': { description: 'Switching to the WebSocket protocol.' },
        '401': {
          description:
            'API_TOKEN is set and the request carries neither its bearer header nor the app’s cookie (API_UNAUTHORIZED).',
        },
        '403': { description: 'Foreign Origin or Host (ORIGIN_NOT_ALLOWED, HOST_NOT_ALLOWED).' },
        ...responses,
      },
    },
  };
}
