import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ServerError } from '../errors.ts';
import type { LiveEvent } from '../events/event-hub.ts';
import { type EventStreamMap, liveEventsTable } from '../events/live-events.ts';
import { openSse } from '../events/sse.ts';
import { localized, requestLanguage } from '../language.ts';
import { noteRefusal } from '../request-log.ts';
import { refuse } from '../security/local-guard.ts';
import { errors } from './schemas.ts';

/** Most `/api/events` streams open at once: each holds memory; a page leaking them must not. */
export const MAX_EVENT_STREAMS = 64;

/** The refusal of one subscriber too many (503), naming the channel and the cap. */
function tooManySubscribers(channel: string, limit: number): ServerError {
  return new ServerError(
    'TOO_MANY_SUBSCRIBERS',
    localized(
      `${channel} 已有 ${limit} 个连接，已达上限：请关闭多余的窗口或标签页后再试。`,
      `${channel} already has ${limit} open connections, the most it accepts: close other windows or tabs of the app and try again.`,
    ),
  );
}

const EVENTS_DESCRIPTION = `Server-sent events of everything the UI shows live. Each event has an \`id\` (growing number); reconnect with the \`Last-Event-ID\` header (EventSource does it) or \`?last_event_id=\` to receive what you missed (the last 1000 events are kept). A comment line \`: heartbeat\` comes every 0.4 s (\`heartbeat_ms\` of \`stream.opened\`): a client that hears nothing for a few of them can tell the backend is gone, even when no socket was closed.

${liveEventsTable()}`;

export const EventsQuerySchema = z.object({
  last_event_id: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .describe('Same as the Last-Event-ID header.'),
});

/** GET /api/events (SSE) and WS /api/ws/alerts (the original's alert socket). */
export const liveRoutes: FastifyPluginAsyncZod = async (app) => {
  const services = app.classAssistant;
  const { hub, monitor, alertSockets } = services;

  app.get(
    '/api/events',
    {
      schema: {
        tags: ['live'],
        summary: 'Live events (server-sent events)',
        description: EVENTS_DESCRIPTION,
        produces: ['text/event-stream'],
        querystring: EventsQuerySchema,
        headers: z.object({ 'last-event-id': z.string().optional() }),
        response: { ...errors(400, 503) },
      },
    },
    async (request, reply) => {
      if (services.streams.size >= MAX_EVENT_STREAMS) {
        const error = tooManySubscribers('/api/events', MAX_EVENT_STREAMS);
        noteRefusal(request, error);
        return refuse(reply, error);
      }
      const header = Number.parseInt(request.headers['last-event-id'] ?? '', 10);
      const requestedId = Number.isFinite(header) ? header : request.query.last_event_id;
      // An id above the newest one comes from before a restart (ids start again at 1): the
      // client missed an unknown amount, which is a gap, and must get every new event.
      const fromEarlierRun = requestedId !== undefined && requestedId > hub.lastId;
      const lastEventId = fromEarlierRun ? undefined : requestedId;
      const stream = openSse<EventStreamMap>(request, reply, { retryMs: 2000 });
      // Subscribe before replaying so nothing published in between is lost (ids dedupe).
      let sentUpTo = lastEventId ?? hub.lastId;
      const queued: LiveEvent[] = [];
      let replaying = true;
      const unsubscribe = hub.subscribe((event) => {
        if (replaying) {
          queued.push(event);
          return;
        }
        if (event.id > sentUpTo) {
          sentUpTo = event.id;
          stream.send(event.name, event.data, event.id);
        }
      });
      const missed = lastEventId === undefined ? [] : hub.since(lastEventId);
      stream.send('stream.opened', {
        last_event_id: hub.lastId,
        replayed: missed?.length ?? 0,
        gap: fromEarlierRun || missed === undefined,
        monitor: monitor.status(),
        partial: monitor.partial(),
        capture: services.capture.status(),
        heartbeat_ms: services.sseHeartbeatMs,
      });
      for (const event of [...(missed ?? []), ...queued]) {
        if (event.id > sentUpTo) {
          sentUpTo = event.id;
          stream.send(event.name, event.data, event.id);
        }
      }
      replaying = false;
      const heartbeat = setInterval(() => stream.comment('heartbeat'), services.sseHeartbeatMs);
      const end = () => stream.end();
      services.streams.add(end);
      stream.signal.addEventListener('abort', () => {
        clearInterval(heartbeat);
        unsubscribe();
        services.streams.delete(end);
      });
    },
  );

  // Keyword alerts come from the event hub; notices (a failed start) straight from the registry.
  hub.subscribe((event) => {
    if (event.name === 'alert.raised') alertSockets.send(event.data);
  });

  app.get(
    '/api/ws/alerts',
    {
      // Documented in the OpenAPI document by app.ts (@fastify/websocket hides the route).
      websocket: true,
      // Refused before the upgrade: a 503 the client can read, and no socket held open.
      preValidation: async (request: FastifyRequest, reply: FastifyReply) => {
        if (alertSockets.size >= alertSockets.limit) {
          const error = tooManySubscribers('/api/ws/alerts', alertSockets.limit);
          noteRefusal(request, error);
          return refuse(reply, error);
        }
      },
    },
    (socket, request) => {
      const remove = alertSockets.add(socket, requestLanguage(request));
      socket.on('message', (data, isBinary) => {
        if (!isBinary && data.toString() === 'ping') socket.send('pong');
      });
      socket.on('close', remove);
      socket.on('error', remove);
    },
  );
};
