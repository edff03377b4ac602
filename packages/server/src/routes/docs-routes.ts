// The API documentation: /docs (Swagger UI), /docs/json, /docs/yaml and /openapi.json, made on
// the first request. @fastify/swagger, @fastify/swagger-ui and what they load (yaml, a JSON
// schema resolver, @fastify/static and its glob) are a good part of the backend's modules; a
// student who never opens /docs never loads them.
//
// @fastify/swagger builds the document from the routes it saw being added, so the route options
// are collected here as each route is added (an onRoute hook, as @fastify/swagger's own does).
// On the first request a small fastify instance is made with @fastify/swagger and
// @fastify/swagger-ui, the collected routes are added to it (their schemas, without handlers),
// and every /docs request is answered by that instance through inject(): the same document and
// the same pages as with the plugins registered on the app itself.
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import { operationIdOf, serverEntry } from './openapi.ts';

/** What the document says about the running backend. */
export interface ApiDocsOptions {
  /** The document's version: the app's, else the backend package's. */
  version: string;
  /** The first sentence of the description (the app and package versions). */
  versionNote: string;
  /** Where the backend answers (the listening address once it listens). */
  address(): { host: string; port: number };
  /** Paths the route schemas cannot describe (the WebSocket routes), added as they are. */
  extraPaths: Record<string, unknown>;
}

/**
 * The validator and serializer compilers of every route: zod. Given as fastify's
 * `schemaController.compilersFactory`, so that fastify's defaults (ajv, fast-json-stringify)
 * are never loaded; their types are written for ajv, hence the cast.
 */
export const ZOD_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

/**
 * Serves the API documentation of `app`, made on first request. Call it before the routes are
 * registered: it collects them as they are added.
 */
export function installApiDocs(app: FastifyInstance, options: ApiDocsOptions): void {
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    // @fastify/swagger leaves out the HEAD routes fastify adds for each GET.
    if (route.method !== 'HEAD') routes.push(route);
  });
  let docs: Promise<FastifyInstance> | null = null;
  const forward = async (request: FastifyRequest, reply: FastifyReply, url = request.url) => {
    docs ??= buildDocsApp(routes, options).catch((error: unknown) => {
      docs = null;
      throw error;
    });
    const response = await (await docs).inject({
      method: request.method as 'GET' | 'HEAD',
      url,
      headers: request.headers,
    });
    if (response.statusCode === 404) return reply.callNotFound();
    const {
      'content-length': _length,
      'transfer-encoding': _encoding,
      ...headers
    } = response.headers;
    return reply.code(response.statusCode).headers(headers).send(response.rawPayload);
  };
  const hidden = { schema: { hide: true } };
  app.get('/docs', hidden, (request, reply) => forward(request, reply));
  app.get('/docs/*', hidden, (request, reply) => forward(request, reply));
  // The document where generators and tools look for it first.
  app.get('/openapi.json', hidden, (request, reply) => forward(request, reply, '/docs/json'));
  app.addHook('onClose', async () => {
    const made = docs;
    docs = null;
    await (await made?.catch(() => null))?.close();
  });
}

/**
 * A fastify instance serving the OpenAPI document (and /docs) of `routes`: their schemas, no
 * handlers.
 */
export async function buildDocsApp(
  routes: readonly RouteOptions[],
  options: ApiDocsOptions,
): Promise<FastifyInstance> {
  const [{ default: fastifySwagger }, { default: fastifySwaggerUi }] = await Promise.all([
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ]);
  const docs: FastifyInstance = Fastify({
    schemaController: { compilersFactory: ZOD_COMPILERS },
  }) as unknown as FastifyInstance;
  await docs.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Class Assistant backend',
        version: options.version,
        description: `${options.versionNote}The local backend of Class Assistant: monitoring a class (recognition, transcript, keyword alerts), class material, AI rescue / catch-up / notes, settings. Compatible with the v1.2.0 desktop client. Errors are \`{status:"error", code, message}\`. Live events: GET /api/events (server-sent events) and WS /api/ws/alerts; the app window’s microphone: WS /api/ws/capture. With API_TOKEN set in the settings, every route but /mcp and POST /api/shutdown (which check tokens of their own) needs \`Authorization: Bearer <API_TOKEN>\` or the app window’s cookie, else 401 API_UNAUTHORIZED.`,
      },
      // Replaced with the listening address each time the document is made (transformObject).
      servers: [serverEntry(options.address())],
      tags: [
        { name: 'system', description: 'Health and the microphone check' },
        { name: 'settings', description: 'The .env settings file' },
        { name: 'material', description: 'Uploaded class material (data/cite)' },
        { name: 'monitor', description: 'Monitoring a class, keywords and the transcript' },
        { name: 'ai', description: 'Rescue, catch-up, follow-up chats and notes (LLM)' },
        { name: 'live', description: 'Server-sent events and the alerts WebSocket' },
        { name: 'models', description: 'Offline recognition models: catalogue, download, remove' },
        { name: 'library', description: 'Every class kept (data/classes): list, search, export' },
        {
          name: 'mcp',
          description: 'The MCP server of the lectures: the class tools for other agents',
        },
      ],
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      const method = [input.route.method].flat()[0] ?? 'GET';
      return {
        ...transformed,
        schema: { operationId: operationIdOf(method, input.url), ...transformed.schema },
      };
    },
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input) as {
        paths?: Record<string, unknown>;
        servers?: unknown;
      };
      document.servers = [serverEntry(options.address())];
      // @fastify/websocket hides WebSocket routes from the document; describe the sockets here.
      document.paths = { ...document.paths, ...options.extraPaths };
      return document as ReturnType<typeof jsonSchemaTransformObject>;
    },
  });
  await docs.register(fastifySwaggerUi, { routePrefix: '/docs' });
  const noHandler = async () => undefined;
  for (const route of routes) {
    // The app's own documentation routes are hidden; the UI plugin adds its own.
    if (route.url === '/docs' || route.url.startsWith('/docs/') || route.url === '/openapi.json')
      continue;
    docs.route({
      method: route.method,
      url: route.url,
      ...(route.schema ? { schema: route.schema } : {}),
      ...(route.config ? { config: route.config } : {}),
      handler: noHandler,
    });
  }
  await docs.ready();
  return docs;
}
