import { AsrProtocolError } from './errors.ts';

/**
 * The service's three endpoints:
 * - `bigmodel`: bidirectional streaming, one response per audio packet;
 * - `bigmodel_async`: optimised bidirectional streaming, a response only when the result changes
 *   (preferred; the only one with two-pass recognition);
 * - `bigmodel_nostream`: streaming input, results after 15 s of audio or at the last packet.
 */
export const ASR_ENDPOINTS = ['bigmodel', 'bigmodel_async', 'bigmodel_nostream'] as const;

/** One of {@link ASR_ENDPOINTS}. */
export type AsrEndpoint = (typeof ASR_ENDPOINTS)[number];

/** The service's public base URL (scheme wss); the endpoint path is appended to it. */
export const DEFAULT_ASR_BASE_URL = 'wss://openspeech.bytedance.com';

/** Path of an endpoint under the base URL. */
export function endpointPath(endpoint: AsrEndpoint): string {
  return `/api/v3/sauc/${endpoint}`;
}

/** True when `value` names one of the three endpoints. */
export function isAsrEndpoint(value: unknown): value is AsrEndpoint {
  return typeof value === 'string' && (ASR_ENDPOINTS as readonly string[]).includes(value);
}

/**
 * Parses a base URL the way a WebSocket can use it: ws, wss, http or https, no `#fragment` (a
 * WebSocket URL cannot carry one). Returns the URL, or what is wrong with it.
 */
export function checkBaseUrl(baseUrl: unknown): URL | string {
  if (typeof baseUrl !== 'string') return `must be a string (got ${typeof baseUrl})`;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return `not a valid URL (got ${JSON.stringify(baseUrl.slice(0, 200))})`;
  }
  if (!['ws:', 'wss:', 'http:', 'https:'].includes(url.protocol)) {
    return `scheme must be ws, wss, http or https (got ${url.protocol.slice(0, -1)})`;
  }
  if (url.hash !== '' || baseUrl.includes('#')) {
    return 'must not have a #fragment (a WebSocket URL cannot carry one)';
  }
  return url;
}

/**
 * The WebSocket URL of `endpoint` under `baseUrl` (ws, wss, http or https; a path prefix in the
 * base URL is kept, so proxies mounted under a path work).
 *
 * @example
 * endpointUrl('wss://asr.example.com', 'bigmodel_async'); // 'wss://asr.example.com/api/v3/sauc/bigmodel_async'
 */
export function endpointUrl(baseUrl: string, endpoint: AsrEndpoint): string {
  const checked = checkBaseUrl(baseUrl);
  if (typeof checked === 'string') {
    throw new AsrProtocolError('ASR_INVALID_OPTIONS', `url: ${checked}`, {
      issues: [{ path: 'url', message: checked }],
    });
  }
  const url = checked;
  if (!isAsrEndpoint(endpoint)) {
    throw new AsrProtocolError(
      'ASR_INVALID_OPTIONS',
      `endpoint: must be one of ${ASR_ENDPOINTS.join(', ')} (got ${JSON.stringify(endpoint)})`,
      { issues: [{ path: 'endpoint', message: `must be one of ${ASR_ENDPOINTS.join(', ')}` }] },
    );
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${endpointPath(endpoint)}`;
  return url.toString();
}
