// The REST contract (src/routes/rest-contract.ts) against the real app: every route the app
// documents is in the contract and nothing else is, and the contract's schemas make the same
// OpenAPI document as the routes' own (answers, path and query parameters, bodies). A route
// added without the contract, or a contract entry that drifted from its route, fails here.
import type { RouteOptions } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildDocsApp } from '../src/routes/docs-routes.ts';
import { REST_CONTRACT, type RestRouteSchemas } from '../src/routes/rest-contract.ts';
import { createHarness, type Harness } from './support/harness.ts';

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses?: Record<string, { content?: unknown }>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const keyOf = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`;

/** Every operation of a document, by contract key. */
function operations(document: OpenApiDocument): Map<string, Operation> {
  const result = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      result.set(keyOf(method, path), operation);
    }
  }
  return result;
}

/** The success status of an operation: 200, or 202 for a route that answers "accepted". */
const successStatus = (operation: Operation) =>
  ['200', '202'].find((status) => operation.responses?.[status]) ?? null;

/** What the contract and the route must agree on. */
function comparable(operation: Operation | undefined) {
  if (!operation) return undefined;
  const status = successStatus(operation);
  return {
    parameters: (operation.parameters ?? []).filter((parameter) =>
      ['path', 'query'].includes(parameter.in),
    ),
    requestBody: operation.requestBody ?? null,
    // The schemas only, each once: a streamed route documents its answer as text/event-stream,
    // the export as each of its file types.
    success: status
      ? {
          status,
          schemas: [
            ...new Set(
              Object.values(
                (operation.responses?.[status]?.content ?? {}) as Record<
                  string,
                  { schema: unknown }
                >,
              ).map((media) => JSON.stringify(media.schema)),
            ),
          ].map((schema) => JSON.parse(schema)),
        }
      : null,
  };
}

describe('the REST contract', () => {
  it('names every route the app serves, and no other', async () => {
    harness = await createHarness();
    const document = (await harness.request({ url: '/docs/json' })).json() as OpenApiDocument;
    const served = [...operations(document).keys()].sort();
    expect(served.length).toBeGreaterThan(40);
    expect(Object.keys(REST_CONTRACT).sort()).toEqual(served);
  });

  it('has the same schemas as the routes: the same answers, parameters and bodies', async () => {
    harness = await createHarness();
    const real = operations(
      (await harness.request({ url: '/docs/json' })).json() as OpenApiDocument,
    );
    // The document the contract alone makes, through the same OpenAPI machinery as the app's.
    const routes: RouteOptions[] = [];
    for (const [key, entry] of Object.entries(REST_CONTRACT) as Array<[string, RestRouteSchemas]>) {
      const [method, url] = key.split(' ') as [string, string];
      const status = successStatus(real.get(key) ?? {}) ?? '200';
      const response = !entry.response
        ? {}
        : entry.events
          ? {
              [status]: {
                content: {
                  'application/json': { schema: entry.response },
                  'text/event-stream': { schema: entry.events },
                },
              },
            }
          : { [status]: entry.response };
      if (!entry.response && !entry.params && !entry.querystring && !entry.body) continue;
      routes.push({
        method: method as RouteOptions['method'],
        url,
        schema: {
          ...(entry.params ? { params: entry.params } : {}),
          ...(entry.querystring ? { querystring: entry.querystring } : {}),
          ...(entry.body ? { body: entry.body } : {}),
          response,
        },
        handler: async () => undefined,
      });
    }
    const docs = await buildDocsApp(routes, {
      version: '0.0.0',
      versionNote: '',
      address: () => ({ host: '127.0.0.1', port: 8765 }),
      extraPaths: {},
    });
    try {
      const fromContract = operations(
        (await docs.inject({ url: '/docs/json' })).json() as OpenApiDocument,
      );
      for (const route of routes) {
        const key = `${route.method} ${route.url}`;
        expect(comparable(fromContract.get(key)), key).toEqual(comparable(real.get(key)));
      }
    } finally {
      await docs.close();
    }
  });

  it("says what a streamed route's end event carries: the route's success answer", () => {
    const streamed = Object.entries(REST_CONTRACT).filter(
      ([key, entry]) => key.endsWith('/stream') || 'end' in entry,
    );
    expect(streamed.length).toBeGreaterThan(4);
    for (const [key, entry] of streamed as Array<[string, RestRouteSchemas]>) {
      const { response, end } = entry;
      expect(end, key).toBeDefined();
      // The answer is the success or, for the original client only, a failure (a union).
      const options = (response as z.ZodUnion | undefined)?.options ?? [response];
      expect(options, key).toContain(end);
    }
  });
});
