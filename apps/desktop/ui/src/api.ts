// Calls to the backend (same origin): JSON routes, the upload with progress and the streamed AI
// answers. Every failure becomes an ApiError with the server's stable code, or one of ours when
// the backend could not be reached at all. Routes, their parameters, bodies and answers are typed
// from the backend's REST contract (types only: nothing of the server is bundled).
import type {
  RestAnswer,
  RestBody,
  RestContract,
  RestError,
  RestJsonRoute,
  RestParams,
  RestQuery,
  RestRoute,
  RestStreamEnd,
  RestStreamEvent,
} from '@class-assistant/server/rest-contract';
import { lang } from './i18n.ts';
import { readEventStream } from './sse.ts';

/** The backend writes its messages in the language the request prefers: the UI's own. */
function languageHeader(): { 'accept-language': string } {
  return { 'accept-language': lang() === 'en' ? 'en' : 'zh-CN,zh' };
}

const marker = Symbol.for('class-assistant.ui.api-error');

/** A failed call: the backend's `{status:"error", code, message, hint?, field?}`, or ours. */
export class ApiError extends Error {
  /** The server's code, or BACKEND_UNREACHABLE / BAD_RESPONSE / STREAM_INTERRUPTED / ABORTED. */
  readonly code: string;
  /** HTTP status (0 when no answer came). */
  readonly status: number;
  readonly hint: string | undefined;
  /** The technical cause, for a "details" disclosure (never the headline). */
  readonly technical: string | undefined;
  readonly field: string | undefined;
  readonly fields: Array<{ field: string; message: string }>;
  readonly [marker] = true;

  constructor(
    code: string,
    status: number,
    message: string,
    details: {
      hint?: string | undefined;
      technical?: string | undefined;
      field?: string | undefined;
      fields?: Array<{ field: string; message: string }> | undefined;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.hint = details.hint;
    this.technical = details.technical;
    this.field = details.field;
    this.fields = details.fields ?? [];
  }
}

/** True for an {@link ApiError}. */
export function isApiError(error: unknown): error is ApiError {
  return typeof error === 'object' && error !== null && marker in error;
}

/** A failure's body as it may arrive (a proxy or a crash can answer anything). */
type ErrorBody = Partial<RestError>;

function fromBody(status: number, body: ErrorBody | undefined, fallback: string): ApiError {
  return new ApiError(body?.code ?? `HTTP_${status}`, status, body?.message ?? fallback, {
    hint: body?.hint,
    technical: body?.technical,
    field: body?.field,
    fields: body?.fields,
  });
}

function unreachable(error: unknown): ApiError {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return new ApiError('BACKEND_UNREACHABLE', 0, 'The backend did not answer in time.');
  }
  if (error instanceof DOMException && error.name === 'AbortError') {
    return new ApiError('ABORTED', 0, 'cancelled');
  }
  return new ApiError(
    'BACKEND_UNREACHABLE',
    0,
    `The backend did not answer: ${(error as Error)?.message ?? String(error)}`,
  );
}

/** True when the contract gives `Route` a schema for `Key`. */
type Has<Route extends RestRoute, Key extends string> =
  RestContract[Route] extends Record<Key, unknown> ? true : false;

/** What a route is called with: its path parameters, query string and body, as it takes them. */
export type RouteInput<Route extends RestRoute> = (Has<Route, 'params'> extends true
  ? { params: RestParams<Route> }
  : { params?: never }) &
  (Has<Route, 'querystring'> extends true ? { query?: RestQuery<Route> } : { query?: never }) &
  (Has<Route, 'body'> extends true
    ? undefined extends RestBody<Route>
      ? { body?: RestBody<Route> }
      : { body: RestBody<Route> }
    : { body?: never });

/** Options of {@link call}. */
export type CallOptions<Route extends RestRoute> = RouteInput<Route> & {
  signal?: AbortSignal;
  /**
   * Gives up after this long (default 20 s), so a backend that accepted the connection and then
   * died can never leave the UI waiting. Ending a class with notes waits for the LLM: longer.
   */
  timeoutMs?: number;
  /**
   * The route answers HTTP 200 with `{status: "error", …}` as a result, not a failure (the
   * microphone check: no device is an answer to show): return it instead of throwing.
   */
  errorStatusIsAnswer?: boolean;
};

/** The options argument: optional when nothing in it is required. */
type OptionsArgument<Options> = object extends Options ? [options?: Options] : [options: Options];

/**
 * The method and the URL of a call: the route's method, its path with the parameters filled in
 * and the query string (absent values left out), each part URI-encoded.
 *
 * @example
 * routeUrl('GET /api/notes/:filename', { params: { filename: 'a b.md' } });
 * // { method: 'GET', url: '/api/notes/a%20b.md' }
 */
export function routeUrl<Route extends RestRoute>(
  route: Route,
  input: RouteInput<Route>,
): { method: string; url: string } {
  const [method, path] = route.split(' ') as [string, string];
  const params = (input.params ?? {}) as Record<string, unknown>;
  const url = path.replace(/:([A-Za-z_]+)/g, (_match, name: string) =>
    encodeURIComponent(String(params[name])),
  );
  const query = Object.entries((input.query ?? {}) as Record<string, unknown>)
    .filter(([, value]) => value !== undefined && value !== null)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return { method, url: query ? `${url}?${query}` : url };
}

/**
 * Calls a JSON route of the backend's REST contract: the method comes from the route, the URL
 * from its path parameters and query, and the answer has the route's type.
 *
 * @example
 * const status = await call('GET /api/monitor_status');
 * const note = await call('GET /api/notes/:filename', { params: { filename } });
 */
export async function call<Route extends RestJsonRoute>(
  route: Route,
  ...[options = {} as CallOptions<Route>]: OptionsArgument<CallOptions<Route>>
): Promise<RestAnswer<Route>> {
  const { method, url } = routeUrl(route, options);
  const payload: unknown = options.body;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      signal,
      method,
      headers:
        payload === undefined
          ? { accept: 'application/json', ...languageHeader() }
          : {
              accept: 'application/json',
              'content-type': 'application/json',
              ...languageHeader(),
            },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    });
  } catch (error) {
    throw unreachable(error);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (error) {
    if (error instanceof DOMException) throw unreachable(error);
    throw new ApiError(
      'BAD_RESPONSE',
      response.status,
      `The backend answered HTTP ${response.status} without JSON.`,
    );
  }
  if (!response.ok || (!options.errorStatusIsAnswer && (body as ErrorBody)?.status === 'error')) {
    throw fromBody(response.status, body as ErrorBody, `HTTP ${response.status}`);
  }
  return body as RestAnswer<Route>;
}

/** The routes that take a multipart/form-data upload. */
type UploadRoute = 'POST /api/upload_ppt' | 'POST /api/import';

/**
 * Sends a form with upload progress (fetch has no upload progress; XHR does). `onProgress` gets
 * the fraction sent, 0..1; at 1 the backend is still reading the file.
 */
function sendForm<Route extends UploadRoute>(
  route: Route,
  form: FormData,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<RestAnswer<Route>> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    const { method, url } = routeUrl(route, {} as RouteInput<Route>);
    request.open(method, url);
    request.setRequestHeader('accept-language', languageHeader()['accept-language']);
    request.responseType = 'json';
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.upload.addEventListener('load', () => onProgress(1));
    request.addEventListener('load', () => {
      const body = request.response as RestAnswer<Route> | ErrorBody | null;
      const failed = body === null || (body as ErrorBody).status === 'error';
      if (request.status >= 200 && request.status < 300 && !failed) {
        resolve(body as RestAnswer<Route>);
      } else {
        reject(
          fromBody(
            request.status,
            (body as ErrorBody | null) ?? undefined,
            `HTTP ${request.status}`,
          ),
        );
      }
    });
    request.addEventListener('error', () =>
      reject(new ApiError('BACKEND_UNREACHABLE', 0, 'The upload was cut off.')),
    );
    request.addEventListener('abort', () => reject(new ApiError('ABORTED', 0, 'cancelled')));
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}

/**
 * Uploads a class-material file with progress.
 * `onProgress` gets the fraction sent, 0..1; at 1 the backend is still reading the file.
 */
export function uploadMaterial(
  file: File,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<RestAnswer<'POST /api/upload_ppt'>> {
  const form = new FormData();
  form.append('file', file, file.name);
  return sendForm('POST /api/upload_ppt', form, onProgress, signal);
}

/**
 * Uploads a recording to import, with progress: the class is named `course_name` and cites
 * `cite_filename` (both optional). Answers once the backend took it (the import then reports
 * through `import.changed`).
 */
export function uploadRecording(
  file: File,
  fields: { course_name: string; cite_filename: string },
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<RestAnswer<'POST /api/import'>> {
  const form = new FormData();
  // The fields before the file: a backend reading the stream has them when the file begins.
  if (fields.course_name !== '') form.append('course_name', fields.course_name);
  if (fields.cite_filename !== '') form.append('cite_filename', fields.cite_filename);
  form.append('file', file, file.name);
  return sendForm('POST /api/import', form, onProgress, signal);
}

/** Options of {@link streamAnswer}. */
export interface StreamOptions {
  /** Called with each piece of text as the model writes it. */
  onDelta: (text: string) => void;
  /** Called as the class agent starts each lookup (`tool.called`). */
  onToolCall?: (call: ToolCall) => void;
  /** The route's names of the text and end events (`/api/ask`: answer.delta, answer.done). */
  events?: { delta: string; end: string };
  signal?: AbortSignal;
}

/** A lookup of the class agent, as `tool.called` announces it. */
export type ToolCall = Extract<RestStreamEvent<'POST /api/ask'>, { event: 'tool.called' }>['data'];

/** The routes that stream an answer (their final event's body is in the contract). */
export type StreamRoute = {
  [Route in RestRoute]: RestContract[Route] extends { end: unknown } ? Route : never;
}[RestRoute];

/**
 * Calls a streamed AI route (`POST /api/<feature>/stream`): text arrives through `onDelta`, the
 * promise resolves with the final answer (the `end` event) or rejects with the `error.raised`
 * body. A configuration problem (LLM_NOT_CONFIGURED) is answered before the stream opens.
 */
export async function streamAnswer<Route extends StreamRoute>(
  route: Route,
  input: RouteInput<Route>,
  options: StreamOptions,
): Promise<RestStreamEnd<Route>> {
  const { method, url } = routeUrl(route, input);
  const body: unknown = input.body;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        accept: 'text/event-stream',
        'content-type': 'application/json',
        ...languageHeader(),
      },
      body: JSON.stringify(body ?? {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    throw unreachable(error);
  }
  if (!response.ok) {
    let errorBody: ErrorBody | undefined;
    try {
      errorBody = (await response.json()) as ErrorBody;
    } catch {
      errorBody = undefined;
    }
    throw fromBody(response.status, errorBody, `HTTP ${response.status}`);
  }
  let result:
    | { ok: true; value: RestStreamEnd<Route> }
    | { ok: false; error: ApiError }
    | undefined;
  try {
    await readEventStream(response, (message) => {
      if (result) return;
      const names = options.events ?? { delta: 'text.delta', end: 'end' };
      if (message.event === names.delta) {
        const { text } = JSON.parse(message.data) as { text: string };
        options.onDelta(text);
      } else if (message.event === 'tool.called') {
        options.onToolCall?.(JSON.parse(message.data) as ToolCall);
      } else if (message.event === names.end) {
        result = { ok: true, value: JSON.parse(message.data) as RestStreamEnd<Route> };
      } else if (message.event === 'error.raised') {
        result = {
          ok: false,
          error: fromBody(502, JSON.parse(message.data), 'The answer failed.'),
        };
      }
    });
  } catch (error) {
    throw unreachable(error);
  }
  if (!result) {
    throw new ApiError(
      'STREAM_INTERRUPTED',
      0,
      'The answer was cut off before it finished (the backend stopped?).',
    );
  }
  if (!result.ok) throw result.error;
  return result.value;
}
