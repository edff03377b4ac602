/**
 * Every error the server reports has a stable string `code`, an HTTP status and a message meant
 * for the student — in Chinese and English where a student reads it (see language.ts). The
 * routes turn it into `{status:"error", code, message, detail}` in the request's language
 * (`detail` repeats the message because the original v1.2.0 client reads `err.detail`).
 */
import {
  DEFAULT_LANGUAGE,
  isLocalized,
  type Language,
  type Localized,
  type MessageText,
  textIn,
} from './language.ts';
import { maskSecretsInText } from './secret-rules.ts';

/**
 * The HTTP status of every error code: one status per code, like fastify's error registry, so a
 * client can rely on either. A new code is added here first; `new ServerError(code, …)` takes its
 * status from this table (pinned by errors.test.ts).
 */
export const ERROR_STATUS = {
  HOST_NOT_ALLOWED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  VALIDATION_FAILED: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SETTINGS_INVALID: 400,
  SETTINGS_WRITE_FAILED: 500,
  SETTINGS_SECRET_REQUIRED: 400,
  SETTINGS_FILE_UNUSABLE: 409,
  UPLOAD_MISSING_FILE: 400,
  UPLOAD_TOO_LARGE: 413,
  UPLOAD_TOO_MANY_FILES: 413,
  UPLOAD_UNSUPPORTED_TYPE: 415,
  UPLOAD_LEGACY_FORMAT: 415,
  UPLOAD_CONTENT_MISMATCH: 415,
  UPLOAD_ENCRYPTED: 422,
  UPLOAD_CORRUPT: 422,
  UPLOAD_ARCHIVE_TOO_LARGE: 422,
  UPLOAD_NO_TEXT: 422,
  CITE_FILE_NOT_FOUND: 404,
  CITE_FILENAME_INVALID: 400,
  MATERIAL_PAGE_NOT_FOUND: 404,
  NOTES_NOT_FOUND: 404,
  NOTES_FILENAME_INVALID: 400,
  SHUTDOWN_UNAVAILABLE: 501,
  SHUTDOWN_FORBIDDEN: 403,
  RECOGNIZER_UNAVAILABLE: 503,
  RECOGNIZER_FAILED: 502,
  AUDIO_INPUT_INVALID: 503,
  AUDIO_DEVICE_UNAVAILABLE: 503,
  RECORDING_UNSUPPORTED: 415,
  NATIVE_MODULE_MISSING: 503,
  ASR_MODEL_MISSING: 503,
  TOO_MANY_SUBSCRIBERS: 503,
  TRANSCRIPT_EMPTY: 409,
  LLM_NOT_CONFIGURED: 503,
  LLM_UNREACHABLE: 502,
  LLM_TIMEOUT: 504,
  LLM_AUTH_FAILED: 502,
  LLM_RATE_LIMITED: 429,
  LLM_ERROR: 502,
  LLM_CANCELLED: 499,
  LLM_BAD_RESPONSE: 502,
  NOTES_WRITE_FAILED: 500,
  SERVER_STOPPING: 503,
  MODEL_UNKNOWN: 404,
  MODEL_NOT_FOUND: 404,
  MODEL_NAME_INVALID: 400,
  MODEL_BUSY: 409,
  MODEL_NETWORK_FAILED: 502,
  MODEL_CHECKSUM_MISMATCH: 422,
  MODEL_DISK_SPACE: 507,
  MODEL_ARCHIVE_INVALID: 422,
  MODEL_DOWNLOAD_CANCELLED: 409,
  MODEL_ADDRESS_REFUSED: 403,
  MODEL_SOURCE_UNKNOWN: 400,
  MODEL_UNCHECKED: 409,
  CLASS_ID_INVALID: 400,
  CLASS_NOT_FOUND: 404,
  CLASS_AUDIO_NOT_FOUND: 404,
  AUDIO_RANGE_INVALID: 416,
  CLASS_RUNNING: 409,
  CLASS_NOT_RUNNING: 409,
  IMPORT_BUSY: 409,
  IMPORT_NOT_RECORDING: 400,
  IMPORT_TOO_LARGE: 413,
  IMPORT_NOT_FOUND: 404,
  IMPORT_NOT_RESUMABLE: 409,
  MARK_NO_LINE: 409,
  MARK_LINE_INVALID: 400,
  SEARCH_QUERY_INVALID: 400,
  LIBRARY_UNAVAILABLE: 503,
  MCP_UNAUTHORIZED: 401,
  API_UNAUTHORIZED: 401,
  API_TOKEN_NOT_SET: 409,
  FILE_LINK_REFUSED: 403,
  INTERNAL_ERROR: 500,
} as const satisfies Record<string, number>;

/** A stable error code (a key of {@link ERROR_STATUS}). */
export type ServerErrorCode = keyof typeof ERROR_STATUS;

/** Extra facts an error carries to the client, e.g. the settings field that was wrong. */
export interface ServerErrorDetails {
  /** The request or settings field at fault. */
  field?: string;
  /** What to do about it, e.g. which setting to change. */
  hint?: string;
  /**
   * The technical cause in a system's or a service's own words (an ALSA error, `getaddrinfo
   * ENOTFOUND …`), kept out of `message` (which says what happened and what to do in the
   * student's language) for a "details" disclosure.
   */
  technical?: string;
  /** Every field problem when several were found at once. */
  fields?: Array<{ field: string; message: MessageText }>;
}

const marker = Symbol.for('class-assistant.server-error');

/**
 * An error with a stable code; its HTTP status is the code's one status in {@link ERROR_STATUS}.
 *
 * @example
 * throw new ServerError('CITE_FILE_NOT_FOUND', 'No material named "week1.txt" in data/cite.');
 */
export class ServerError extends Error {
  readonly code: ServerErrorCode;
  readonly statusCode: number;
  readonly details: ServerErrorDetails;
  /** The message in both languages (`message` is the English one, for logs). */
  readonly localized: Localized | undefined;
  readonly [marker] = true;

  constructor(
    code: ServerErrorCode,
    message: MessageText,
    details: ServerErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(textIn(message, 'en'), options);
    this.name = 'ServerError';
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.details = details;
    this.localized = isLocalized(message) ? message : undefined;
  }
}

/** The message of an error in `language` (an error with one text has it in both). */
export function errorMessage(error: ServerError, language: Language): string {
  // A message may quote a setting or a service's answer: an address's password or a key in it
  // is masked.
  return maskSecretsInText(error.localized ? error.localized[language] : error.message);
}

/** True for a {@link ServerError}, also across copies of this package (no `instanceof`). */
export function isServerError(error: unknown): error is ServerError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/** The JSON body of every error response. */
export interface ErrorBody extends Omit<ServerErrorDetails, 'fields'> {
  fields?: Array<{ field: string; message: string }>;
  status: 'error';
  code: string;
  message: string;
  /** Same as `message`, for clients written against the original FastAPI backend. */
  detail: string;
}

/** The body of an error response, its messages in `language` (Chinese unless the request prefers English). */
export function errorBody(error: ServerError, language: Language = DEFAULT_LANGUAGE): ErrorBody {
  const message = errorMessage(error, language);
  const { fields, technical, ...details } = error.details;
  return {
    status: 'error',
    code: error.code,
    message,
    detail: message,
    ...details,
    ...(technical ? { technical: maskSecretsInText(technical) } : {}),
    ...(fields
      ? {
          fields: fields.map((field) => ({
            field: field.field,
            message: maskSecretsInText(textIn(field.message, language)),
          })),
        }
      : {}),
  };
}
