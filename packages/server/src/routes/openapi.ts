/**
 * What the OpenAPI document says beyond the route schemas: a stable operationId for every
 * operation (generated clients need names that do not change) and the address the backend
 * really listens on (so "Try it out" in /docs calls this server, whatever its port).
 */

/**
 * The operationId of a route: its method and its path in camelCase, without the `/api` prefix,
 * path parameters as `By<Name>`. Derived from the route itself, so it only changes when the
 * route does.
 *
 * @example
 * operationIdOf('POST', '/api/start_monitor')      // 'postStartMonitor'
 * operationIdOf('GET', '/api/classes/:id/export')  // 'getClassesByIdExport'
 * operationIdOf('DELETE', '/api/models/{name}')    // 'deleteModelsByName'
 */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((segment) => segment !== '' && segment !== 'api')
    .flatMap((segment) => {
      const parameter = /^:(.+)$|^\{(.+)\}$/.exec(segment);
      const name = parameter ? (parameter[1] ?? parameter[2]!) : segment;
      const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
      return parameter ? ['by', ...parts] : parts;
    });
  const pascal = words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
  return `${method.toLowerCase()}${pascal}`;
}

/** The server entry of the document: where this backend listens. */
export function serverEntry(address: { host: string; port: number }): { url: string } {
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  return { url: `http://${host}:${address.port}` };
}
