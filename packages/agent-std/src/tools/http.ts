import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import type { Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import { z } from 'zod';
import { isToolError, ToolError } from '../errors.ts';
import type { ResolvedToolPolicy } from '../policy.ts';
import { defineTool } from '../tool.ts';
import { addressRefusal, buildAllowList } from './net-guard.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers that frame or route the request; the tool sets them itself. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
]);

/** True for CR, LF, NUL and every other control character except tab. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

const headersField = () =>
  z
    .record(z.string(), z.string())
    .superRefine((headers, context) => {
      for (const [name, value] of Object.entries(headers)) {
        if (!TOKEN.test(name)) {
          context.addIssue({
            code: 'custom',
            path: [name],
            message: "is not a valid header name (letters, digits and !#$%&'*+.^_`|~- only)",
          });
        } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
          context.addIssue({
            code: 'custom',
            path: [name],
            message: 'is set by the tool itself and cannot be given',
          });
        }
        // CR/LF would split the header block (header injection); other controls are refused too.
        if (hasControlCharacter(value)) {
          context.addIssue({
            code: 'custom',
            path: [name],
            message: 'contains a line break or control character',
          });
        }
      }
    })
    .default({})
    .describe('Extra request headers, e.g. {"Authorization": "Bearer …"}.');

const urlField = () => z.string().describe('Absolute http:// or https:// URL.');
const timeoutField = () =>
  z
    .number()
    .int()
    .min(1)
    .default(30)
    .describe('Seconds before the request is abandoned (default 30).');
const dataField = () => z.string().describe('The request body.');

const statusBody = () =>
  z.object({
    status: z.number().int().describe('HTTP status code.'),
    body: z.string().describe('Response body as text.'),
  });

interface HttpResult {
  status: number;
  statusText: string;
  url: string;
  body: string;
}

interface HttpCall {
  tool: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  contentType?: string;
  timeoutSeconds: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function parseUrl(text: string, tool: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError('TOOL_BAD_INPUT', `${field} "${text}" is not an absolute URL`, {
      tool,
      field,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      'TOOL_POLICY_DENIED',
      `only http and https URLs are allowed, not ${url.protocol.replace(':', '')} (${field})`,
      { tool, field },
    );
  }
  return url;
}

function hostAllowed(host: string, allowedHosts: readonly string[] | undefined): boolean {
  if (!allowedHosts) return true;
  const name = host.toLowerCase();
  return allowedHosts.some((pattern) =>
    pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern,
  );
}

/** Resolves `host` and checks every address; returns the one to connect to. */
async function checkedAddress(
  url: URL,
  policy: ResolvedToolPolicy,
  tool: string,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!hostAllowed(host, policy.http.allowedHosts)) {
    throw new ToolError('TOOL_POLICY_DENIED', `host "${host}" is not in policy.http.allowedHosts`, {
      tool,
      field: 'url',
    });
  }
  let addresses: readonly string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = policy.http.resolve
        ? await policy.http.resolve(host)
        : (await dnsLookup(host, { all: true, order: 'verbatim' })).map((entry) => entry.address);
    } catch (cause) {
      throw new ToolError('TOOL_FAILED', `could not resolve host "${host}"`, {
        tool,
        field: 'url',
        cause,
      });
    }
    if (addresses.length === 0 || addresses.some((address) => isIP(address) === 0)) {
      throw new ToolError('TOOL_FAILED', `could not resolve host "${host}"`, {
        tool,
        field: 'url',
      });
    }
  }
  const allow = policy.http.allowPrivateNetwork;
  const allowList = typeof allow === 'boolean' ? undefined : buildAllowList(allow);
  // Every address must pass: a name answering with one public and one private address is refused.
  for (const address of addresses) {
    const refusal = addressRefusal(address, allow, allowList);
    if (refusal !== undefined) {
      throw new ToolError(
        'TOOL_POLICY_DENIED',
        `${host === address ? 'address' : `host "${host}" resolves to`} ${address}, a ${refusal} address; set policy.http.allowPrivateNetwork to reach it`,
        { tool, field: 'url', details: { address, reason: refusal } },
      );
    }
  }
  const address = addresses[0] as string;
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

function charsetOf(contentType: string | undefined): string {
  const match = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return match?.[1] ?? 'utf-8';
}

function decodeBody(bytes: Buffer, contentType: string | undefined): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(contentType));
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

/** A `lookup` that answers every query with the address that was checked. */
function pinnedLookup(target: { address: string; family: 4 | 6 }): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/**
 * Sends one request to the checked address (DNS is never consulted again for this hop). Node's
 * HTTP client and zlib are loaded on the first request, not when the library is imported.
 */
async function sendOnce(
  url: URL,
  target: { address: string; family: 4 | 6 },
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal,
  maxBytes: number,
  tool: string,
): Promise<{ response: IncomingMessage; read: () => Promise<Buffer> }> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const [{ request: send }, { createBrotliDecompress, createGunzip, createInflate }] =
    await Promise.all([
      url.protocol === 'https:' ? import('node:https') : import('node:http'),
      import('node:zlib'),
    ]);
  return new Promise((resolve, reject) => {
    const request = send(
      {
        protocol: url.protocol,
        hostname: host,
        ...(url.port ? { port: url.port } : {}),
        path: `${url.pathname}${url.search}`,
        method,
        headers: body ? { ...headers, 'content-length': String(body.byteLength) } : headers,
        agent: false,
        signal,
        ...(isIP(host) ? {} : { servername: host }),
        // The connection goes to the address that was checked: a second DNS answer (rebinding)
        // between the check and the connect never takes effect.
        lookup: pinnedLookup(target),
      },
      (response) => {
        const read = () =>
          new Promise<Buffer>((resolveBody, rejectBody) => {
            const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
            let stream: IncomingMessage | Transform = response;
            if (encoding === 'gzip' || encoding === 'x-gzip')
              stream = response.pipe(createGunzip());
            else if (encoding === 'deflate') stream = response.pipe(createInflate());
            else if (encoding === 'br') stream = response.pipe(createBrotliDecompress());
            const declared = Number(response.headers['content-length']);
            if (stream === response && Number.isFinite(declared) && declared > maxBytes) {
              rejectBody(tooLarge(maxBytes, tool));
              response.destroy();
              return;
            }
            const chunks: Buffer[] = [];
            let size = 0;
            stream.on('data', (chunk: Buffer) => {
              size += chunk.byteLength;
              // Counted after decompression, so a small compressed bomb is caught too.
              if (size > maxBytes) {
                // Reject first: destroying the response emits 'aborted' synchronously.
                rejectBody(tooLarge(maxBytes, tool));
                response.destroy();
                if (stream !== response) stream.destroy();
                return;
              }
              chunks.push(chunk);
            });
            stream.on('end', () => resolveBody(Buffer.concat(chunks)));
            stream.on('error', rejectBody);
            response.on('error', rejectBody);
            response.on('aborted', () => rejectBody(new Error('the response was cut off')));
          });
        resolve({ response, read });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function tooLarge(limit: number, tool: string): ToolError {
  return new ToolError(
    'TOOL_LIMIT_EXCEEDED',
    `the response is larger than the ${limit}-byte limit (policy.http.maxResponseBytes)`,
    { tool, details: { limit } },
  );
}

function networkFailure(error: unknown, url: URL, tool: string): ToolError {
  if (isToolError(error)) return error;
  const code = (error as { code?: string }).code;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'the connection was refused',
    ECONNRESET: 'the connection was reset',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
    ETIMEDOUT: 'the connection timed out',
    EPROTO: 'the TLS handshake failed',
  };
  const reason =
    (code && reasons[code]) ?? (error instanceof Error ? error.message : String(error));
  return new ToolError('TOOL_FAILED', `request to ${url.origin} failed: ${reason}`, {
    tool,
    cause: error,
  });
}

/**
 * Performs an HTTP request under the policy: scheme check, DNS resolved here and every address
 * checked, connection pinned to the checked address, redirects followed by hand with every hop
 * checked the same way, a total timeout, and a response size cap.
 */
async function performRequest(
  call: HttpCall,
  policy: ResolvedToolPolicy,
  callerSignal: AbortSignal,
): Promise<HttpResult> {
  const { tool } = call;
  const limit = policy.http.maxTimeoutSeconds;
  if (call.timeoutSeconds > limit) {
    throw new ToolError(
      'TOOL_POLICY_DENIED',
      `timeout ${call.timeoutSeconds} s is above the policy limit of ${limit} s (policy.http.maxTimeoutSeconds)`,
      { tool, field: 'timeout' },
    );
  }
  let url = parseUrl(call.url, tool, 'url');
  let method: string = call.method;
  let body = call.body === undefined ? undefined : Buffer.from(call.body, 'utf8');
  if (body && body.byteLength > policy.http.maxRequestBytes) {
    throw new ToolError(
      'TOOL_LIMIT_EXCEEDED',
      `data is ${body.byteLength} bytes, more than the ${policy.http.maxRequestBytes}-byte limit (policy.http.maxRequestBytes)`,
      { tool, field: 'data' },
    );
  }
  const headers: Record<string, string> = {
    'user-agent': 'class-assistant-agent-std',
    accept: '*/*',
    'accept-encoding': 'gzip, deflate, br',
  };
  if (call.contentType !== undefined) headers['content-type'] = call.contentType;
  for (const [name, value] of Object.entries(call.headers)) headers[name.toLowerCase()] = value;

  const timeout = AbortSignal.timeout(call.timeoutSeconds * 1000);
  const signal = AbortSignal.any([callerSignal, timeout]);
  const abortReason = () =>
    timeout.aborted
      ? new ToolError(
          'TOOL_TIMEOUT',
          `no complete response from ${url.origin} within ${call.timeoutSeconds} s`,
          { tool, field: 'timeout' },
        )
      : new ToolError('TOOL_ABORTED', 'the call was aborted', { tool });

  for (let hop = 0; ; hop++) {
    if (signal.aborted) throw abortReason();
    const target = await checkedAddress(url, policy, tool);
    if (signal.aborted) throw abortReason();
    let exchange: Awaited<ReturnType<typeof sendOnce>>;
    try {
      exchange = await sendOnce(
        url,
        target,
        method,
        headers,
        body,
        signal,
        policy.http.maxResponseBytes,
        tool,
      );
    } catch (error) {
      throw signal.aborted ? abortReason() : networkFailure(error, url, tool);
    }
    const { response } = exchange;
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (REDIRECTS.has(status) && typeof location === 'string') {
      response.destroy();
      if (hop >= policy.http.maxRedirects) {
        throw new ToolError(
          'TOOL_LIMIT_EXCEEDED',
          `more than ${policy.http.maxRedirects} redirects (policy.http.maxRedirects)`,
          { tool, field: 'url' },
        );
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ToolError('TOOL_FAILED', `the server redirected to an invalid URL: ${location}`, {
          tool,
        });
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new ToolError(
          'TOOL_POLICY_DENIED',
          `the server redirected to a ${next.protocol.replace(':', '')} URL; only http and https are allowed`,
          { tool, field: 'url' },
        );
      }
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== url.origin) {
        // Credentials meant for one origin are never handed to another.
        delete headers.authorization;
        delete headers.cookie;
        delete headers['proxy-authorization'];
      }
      url = next;
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await exchange.read();
    } catch (error) {
      throw signal.aborted ? abortReason() : networkFailure(error, url, tool);
    }
    return {
      status,
      statusText: response.statusMessage ?? '',
      url: url.href,
      body: decodeBody(bytes, response.headers['content-type']),
    };
  }
}

export const httpGet = defineTool({
  name: 'http_get',
  namespace: 'std.http',
  title: 'HTTP GET',
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: true,
  },
  description:
    'Fetch a URL with GET and return the response body as text. Fails on an HTTP error status (4xx/5xx). Only public http/https addresses.',
  schemas: () => ({
    input: z.object({ url: urlField(), headers: headersField(), timeout: timeoutField() }).strict(),
    output: z.string().describe('The response body.'),
  }),
  async execute({ url, headers, timeout }, { policy, signal }) {
    const tool = 'http_get';
    const result = await performRequest(
      { tool, method: 'GET', url, headers, timeoutSeconds: timeout },
      policy,
      signal,
    );
    if (result.status >= 400) {
      const excerpt = result.body.slice(0, 300);
      throw new ToolError(
        'TOOL_FAILED',
        `HTTP ${result.status}${result.statusText ? ` ${result.statusText}` : ''} from ${result.url}${excerpt ? `: ${excerpt}` : ''}`,
        { tool, details: { status: result.status, body: result.body } },
      );
    }
    return result.body;
  },
});

export const httpPost = defineTool({
  name: 'http_post',
  namespace: 'std.http',
  title: 'HTTP POST',
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  },
  description:
    'Send data with POST and return the status code and response body (any status). Only public http/https addresses.',
  schemas: () => ({
    input: z
      .object({
        url: urlField(),
        data: dataField(),
        headers: headersField(),
        content_type: z
          .string()
          .refine(
            (value) => !hasControlCharacter(value),
            'contains a line break or control character',
          )
          .default('application/json')
          .describe('Content-Type of data (default application/json).'),
        timeout: timeoutField(),
      })
      .strict(),
    output: statusBody(),
  }),
  async execute({ url, data, headers, content_type, timeout }, { policy, signal }) {
    const hasContentType = Object.keys(headers).some(
      (name) => name.toLowerCase() === 'content-type',
    );
    const result = await performRequest(
      {
        tool: 'http_post',
        method: 'POST',
        url,
        headers,
        body: data,
        ...(hasContentType ? {} : { contentType: content_type }),
        timeoutSeconds: timeout,
      },
      policy,
      signal,
    );
    return { status: result.status, body: result.body };
  },
});

export const httpPut = defineTool({
  name: 'http_put',
  namespace: 'std.http',
  title: 'HTTP PUT',
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: true,
  },
  description:
    'Send data with PUT and return the status code and response body (any status). Set Content-Type through headers. Only public http/https addresses.',
  schemas: () => ({
    input: z
      .object({
        url: urlField(),
        data: dataField(),
        headers: headersField(),
        timeout: timeoutField(),
      })
      .strict(),
    output: statusBody(),
  }),
  async execute({ url, data, headers, timeout }, { policy, signal }) {
    const result = await performRequest(
      { tool: 'http_put', method: 'PUT', url, headers, body: data, timeoutSeconds: timeout },
      policy,
      signal,
    );
    return { status: result.status, body: result.body };
  },
});

export const httpDelete = defineTool({
  name: 'http_delete',
  namespace: 'std.http',
  title: 'HTTP DELETE',
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: true,
  },
  description:
    'Send a DELETE request and return the status code and response body (any status). Only public http/https addresses.',
  schemas: () => ({
    input: z.object({ url: urlField(), headers: headersField(), timeout: timeoutField() }).strict(),
    output: statusBody(),
  }),
  async execute({ url, headers, timeout }, { policy, signal }) {
    const result = await performRequest(
      { tool: 'http_delete', method: 'DELETE', url, headers, timeoutSeconds: timeout },
      policy,
      signal,
    );
    return { status: result.status, body: result.body };
  },
});
