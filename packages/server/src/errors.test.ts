import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, errorBody, ServerError, type ServerErrorCode } from './errors.ts';
import { localized } from './language.ts';

describe('the error registry', () => {
  it('gives every code one HTTP status, pinned here', () => {
    // Clients match on the code or on the status; changing either for a code is a breaking change
    // of the HTTP API and shows up here first.
    const byStatus: Record<number, string[]> = {};
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      byStatus[status] = [...(byStatus[status] ?? []), code];
    }
    for (const codes of Object.values(byStatus)) codes.sort();
    expect(byStatus).toMatchInlineSnapshot(`
      {
        "400": [
          "CITE_FILENAME_INVALID",
          "CLASS_ID_INVALID",
          "IMPORT_NOT_RECORDING",
          "MARK_LINE_INVALID",
          "MODEL_NAME_INVALID",
          "MODEL_SOURCE_UNKNOWN",
          "NOTES_FILENAME_INVALID",
          "SEARCH_QUERY_INVALID",
          "SETTINGS_INVALID",
          "SETTINGS_SECRET_REQUIRED",
          "UPLOAD_MISSING_FILE",
          "VALIDATION_FAILED",
        ],
        "401": [
          "API_UNAUTHORIZED",
          "MCP_UNAUTHORIZED",
        ],
        "403": [
          "FILE_LINK_REFUSED",
          "HOST_NOT_ALLOWED",
          "MODEL_ADDRESS_REFUSED",
          "ORIGIN_NOT_ALLOWED",
          "SHUTDOWN_FORBIDDEN",
        ],
        "404": [
          "CITE_FILE_NOT_FOUND",
          "CLASS_AUDIO_NOT_FOUND",
          "CLASS_NOT_FOUND",
          "IMPORT_NOT_FOUND",
          "MATERIAL_PAGE_NOT_FOUND",
          "MODEL_NOT_FOUND",
          "MODEL_UNKNOWN",
          "NOTES_NOT_FOUND",
          "NOT_FOUND",
        ],
        "405": [
          "METHOD_NOT_ALLOWED",
        ],
        "409": [
          "API_TOKEN_NOT_SET",
          "CLASS_NOT_RUNNING",
          "CLASS_RUNNING",
          "IMPORT_BUSY",
          "IMPORT_NOT_RESUMABLE",
          "MARK_NO_LINE",
          "MODEL_BUSY",
          "MODEL_DOWNLOAD_CANCELLED",
          "MODEL_UNCHECKED",
          "SETTINGS_FILE_UNUSABLE",
          "TRANSCRIPT_EMPTY",
        ],
        "413": [
          "BODY_TOO_LARGE",
          "IMPORT_TOO_LARGE",
          "UPLOAD_TOO_LARGE",
          "UPLOAD_TOO_MANY_FILES",
        ],
        "415": [
          "RECORDING_UNSUPPORTED",
          "UNSUPPORTED_MEDIA_TYPE",
          "UPLOAD_CONTENT_MISMATCH",
          "UPLOAD_LEGACY_FORMAT",
          "UPLOAD_UNSUPPORTED_TYPE",
        ],
        "416": [
          "AUDIO_RANGE_INVALID",
        ],
        "422": [
          "MODEL_ARCHIVE_INVALID",
          "MODEL_CHECKSUM_MISMATCH",
          "UPLOAD_ARCHIVE_TOO_LARGE",
          "UPLOAD_CORRUPT",
          "UPLOAD_ENCRYPTED",
          "UPLOAD_NO_TEXT",
        ],
        "429": [
          "LLM_RATE_LIMITED",
        ],
        "499": [
          "LLM_CANCELLED",
        ],
        "500": [
          "INTERNAL_ERROR",
          "NOTES_WRITE_FAILED",
          "SETTINGS_WRITE_FAILED",
        ],
        "501": [
          "SHUTDOWN_UNAVAILABLE",
        ],
        "502": [
          "LLM_AUTH_FAILED",
          "LLM_BAD_RESPONSE",
          "LLM_ERROR",
          "LLM_UNREACHABLE",
          "MODEL_NETWORK_FAILED",
          "RECOGNIZER_FAILED",
        ],
        "503": [
          "ASR_MODEL_MISSING",
          "AUDIO_DEVICE_UNAVAILABLE",
          "AUDIO_INPUT_INVALID",
          "LIBRARY_UNAVAILABLE",
          "LLM_NOT_CONFIGURED",
          "NATIVE_MODULE_MISSING",
          "RECOGNIZER_UNAVAILABLE",
          "SERVER_STOPPING",
          "TOO_MANY_SUBSCRIBERS",
        ],
        "504": [
          "LLM_TIMEOUT",
        ],
        "507": [
          "MODEL_DISK_SPACE",
        ],
      }
    `);
  });

  it('reports each error with its code’s status', () => {
    for (const code of Object.keys(ERROR_STATUS) as ServerErrorCode[]) {
      const error = new ServerError(code, localized('出错了', 'failed'));
      expect([code, error.statusCode]).toEqual([code, ERROR_STATUS[code]]);
    }
    // The recogniser being unreachable and being refused used to answer 502 and 503.
    expect(new ServerError('RECOGNIZER_UNAVAILABLE', 'down').statusCode).toBe(503);
    expect(new ServerError('LLM_CANCELLED', 'cancelled').statusCode).toBe(499);
  });

  it('keeps the body the same whatever the status', () => {
    const body = errorBody(
      new ServerError('NOTES_NOT_FOUND', localized('没有这份笔记', 'No such notes'), {
        field: 'filename',
      }),
      'zh',
    );
    expect(body).toEqual({
      status: 'error',
      code: 'NOTES_NOT_FOUND',
      message: '没有这份笔记',
      detail: '没有这份笔记',
      field: 'filename',
    });
  });
});
