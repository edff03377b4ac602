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
import { maskSecretsInText } from './settings/secret-rules.ts';

export type ServerErrorCode =
  | 'HOST_NOT_ALLOWED'
  | 'ORIGIN_NOT_ALLOWED'
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'BODY_TOO_LARGE'
  | 'SETTINGS_INVALID'
  | 'SETTINGS_WRITE_FAILED'
  | 'SETTINGS_SECRET_REQUIRED'
  | 'SETTINGS_FILE_UNUSABLE'
  | 'UPLOAD_MISSING_FILE'
  | 'UPLOAD_TOO_LARGE'
  | 'UPLOAD_UNSUPPORTED_TYPE'
  | 'UPLOAD_LEGACY_FORMAT'
  | 'UPLOAD_CONTENT_MISMATCH'
  | 'UPLOAD_ENCRYPTED'
  | 'UPLOAD_CORRUPT'
  | 'UPLOAD_ARCHIVE_TOO_LARGE'
  | 'UPLOAD_NO_TEXT'
  | 'CITE_FILE_NOT_FOUND'
  | 'CITE_FILENAME_INVALID'
  | 'NOTES_NOT_FOUND'
  | 'NOTES_FILENAME_INVALID'
  | 'SHUTDOWN_UNAVAILABLE'
  | 'SHUTDOWN_FORBIDDEN'
  | 'RECOGNIZER_UNAVAILABLE'
  | 'RECOGNIZER_FAILED'
  | 'AUDIO_INPUT_INVALID'
  | 'AUDIO_DEVICE_UNAVAILABLE'
  | 'NATIVE_MODULE_MISSING'
  | 'ASR_MODEL_MISSING'
  | 'MONITOR_BUSY'
  | 'TOO_MANY_SUBSCRIBERS'
  | 'TRANSCRIPT_EMPTY'
  | 'LLM_NOT_CONFIGURED'
  | 'LLM_UNREACHABLE'
  | 'LLM_TIMEOUT'
  | 'LLM_AUTH_FAILED'
  | 'LLM_RATE_LIMITED'
  | 'LLM_ERROR'
  | 'LLM_BAD_RESPONSE'
  | 'NOTES_WRITE_FAILED'
  | 'SERVER_STOPPING'
  | 'MODEL_UNKNOWN'
  | 'MODEL_NOT_FOUND'
  | 'MODEL_NAME_INVALID'
  | 'MODEL_BUSY'
  | 'MODEL_NETWORK_FAILED'
  | 'MODEL_CHECKSUM_MISMATCH'
  | 'MODEL_DISK_SPACE'
  | 'MODEL_ARCHIVE_INVALID'
  | 'MODEL_DOWNLOAD_CANCELLED'
  | 'MODEL_ADDRESS_REFUSED'
  | 'MODEL_SOURCE_UNKNOWN'
  | 'MODEL_UNCHECKED'
  | 'CLASS_ID_INVALID'
  | 'CLASS_NOT_FOUND'
  | 'CLASS_RUNNING'
  | 'SEARCH_QUERY_INVALID'
  | 'LIBRARY_UNAVAILABLE'
  | 'MCP_UNAUTHORIZED'
  | 'API_UNAUTHORIZED'
  | 'API_TOKEN_NOT_SET'
  | 'FILE_LINK_REFUSED'
  | 'INTERNAL_ERROR';

/** Extra facts an error carries to the client, e.g. the settings field that was wrong. */
export interface ServerErrorDetails {
  /** The request or settings field at fault. */
  field?: string;
  /** What to do about it, e.g. which setting to change. */
  hint?: string;
  /** Every field problem when several were found at once. */
  fields?: Array<{ field: string; message: MessageText }>;
}

const marker = Symbol.for('class-assistant.server-error');

/**
 * An error with a stable code and the HTTP status it is reported with.
 *
 * @example
 * throw new ServerError('CITE_FILE_NOT_FOUND', 404, 'No material named "week1.txt" in data/cite.');
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
    statusCode: number,
    message: MessageText,
    details: ServerErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(textIn(message, 'en'), options);
    this.name = 'ServerError';
    this.code = code;
    this.statusCode = statusCode;
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
  const { fields, ...details } = error.details;
  return {
    status: 'error',
    code: error.code,
    message,
    detail: message,
    ...details,
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
