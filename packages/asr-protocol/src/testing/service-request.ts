// How the test server reads a full client request: leniently, the way the service treats the
// clients in the wild. Fields it does not know, legacy fields and values, a missing model name and
// options the endpoint does not support are accepted and reported as warnings; what the service
// refuses (a bad audio format, a missing audio or request group, a wrong value) is refused with
// the service's codes. This package's own client stays strict (request-schema.ts).
import type { AsrEndpoint } from '../endpoints.ts';
import type { AsrIssue } from '../errors.ts';
import type { JsonObject, JsonValue } from '../frame-codec.ts';
import {
  type AsrRequest,
  asrRequestSchema,
  hotwordLimitIssue,
  toAsrIssues,
  unsupportedOnEndpoint,
} from '../request-schema.ts';
import { ASR_SERVICE_CODES } from '../service-codes.ts';

/**
 * Why a request field was accepted with a warning:
 * - `unknown-field`: a field the request does not define (`app`, `request.reqid`);
 *   it has no effect;
 * - `legacy-field`: an older name read as the current one (`audio.sample_rate` for `audio.rate`);
 * - `legacy-value`: an older value read as the current one (`audio.codec: "pcm"` for `raw`);
 * - `missing-field`: a required field left out that has only one possible value
 *   (`request.model_name`, `bigmodel`);
 * - `unknown-value`: a value the service does not list where it recognises anyway
 *   (`audio.language: "zh-CN"`), treated as if unset;
 * - `ignored-on-endpoint`: an option this endpoint does not support (`enable_nonstream` on
 *   `bigmodel`), ignored.
 */
export type AsrRequestWarningKind =
  | 'unknown-field'
  | 'legacy-field'
  | 'legacy-value'
  | 'missing-field'
  | 'unknown-value'
  | 'ignored-on-endpoint';

/** A request field the test server accepted but would not have from a strict client. */
export interface AsrRequestWarning {
  /** Dotted path from the request root, e.g. `request.workflow`. */
  path: string;
  kind: AsrRequestWarningKind;
  message: string;
}

/** The request as the test server read it: usable with warnings, or refused. */
type ServiceRequestReading =
  | { ok: true; request: AsrRequest; warnings: AsrRequestWarning[] }
  | { ok: false; serviceCode: number; message: string; warnings: AsrRequestWarning[] };

type Group = Record<string, JsonValue | undefined>;

function groupOf(payload: Group, name: string): Group | undefined {
  const group = payload[name];
  return typeof group === 'object' && group !== null && !Array.isArray(group)
    ? (group as Group)
    : undefined;
}

/** Removes the field at a dotted path, if it is there. */
function removeField(payload: Group, path: readonly PropertyKey[]): void {
  let group: Group | undefined = payload;
  for (const step of path.slice(0, -1)) group = group && groupOf(group, String(step));
  const last = path.at(-1);
  if (group !== undefined && last !== undefined) delete group[String(last)];
}

/** Rewrites the legacy spellings real clients send into the current ones, noting each. */
function readLegacyFields(payload: Group, warnings: AsrRequestWarning[], issues: AsrIssue[]) {
  const audio = groupOf(payload, 'audio');
  if (audio?.codec === 'pcm') {
    audio.codec = 'raw';
    warnings.push({
      path: 'audio.codec',
      kind: 'legacy-value',
      message: 'legacy value "pcm", read as "raw"',
    });
  }
  if (audio !== undefined && 'sample_rate' in audio) {
    const sampleRate = audio.sample_rate;
    delete audio.sample_rate;
    warnings.push({
      path: 'audio.sample_rate',
      kind: 'legacy-field',
      message: 'legacy field, read as audio.rate',
    });
    if (audio.rate === undefined) {
      audio.rate = sampleRate;
    } else if (audio.rate !== sampleRate) {
      issues.push({
        path: 'audio.sample_rate',
        message: `disagrees with audio.rate (${JSON.stringify(sampleRate)} and ${JSON.stringify(audio.rate)})`,
      });
    }
  }
  const options = groupOf(payload, 'request');
  if (options !== undefined && options.model_name === undefined) {
    options.model_name = 'bigmodel';
    warnings.push({
      path: 'request.model_name',
      kind: 'missing-field',
      message: 'missing; the service assumes bigmodel',
    });
  }
}

function refusal(issues: AsrIssue[], warnings: AsrRequestWarning[]): ServiceRequestReading {
  const audioFormat = issues.some((issue) => issue.path.startsWith('audio.'));
  return {
    ok: false,
    serviceCode: audioFormat ? ASR_SERVICE_CODES.AUDIO_FORMAT : ASR_SERVICE_CODES.INVALID_REQUEST,
    message: issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
    warnings,
  };
}

/**
 * Reads a full client request the way the service does (see {@link AsrRequestWarningKind}).
 * Refusals carry the service's code: 45000151 for a problem in the audio format, 45000001 for
 * anything else (a missing group, a wrong value, a hot-word list over the endpoint's limit).
 *
 * @example
 * const reading = readServiceRequest({ app: { appid: '1' }, audio: { format: 'pcm' }, request: {} }, 'bigmodel');
 * // { ok: true, request: {...}, warnings: [{ path: 'app', kind: 'unknown-field', ... }, { path: 'request.model_name', ... }] }
 */
export function readServiceRequest(
  payload: JsonObject,
  endpoint: AsrEndpoint,
): ServiceRequestReading {
  const copy = structuredClone(payload) as Group;
  const warnings: AsrRequestWarning[] = [];
  const issues: AsrIssue[] = [];
  readLegacyFields(copy, warnings, issues);
  if (issues.length > 0) return refusal(issues, warnings);
  let parsed = asrRequestSchema.safeParse(copy);
  // Unknown fields (and unknown languages) are dropped and noted, then the rest is read again;
  // each round removes at least one field, so this ends.
  while (!parsed.success) {
    let dropped = false;
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const path = [...issue.path, key];
          warnings.push({
            path: path.join('.'),
            kind: 'unknown-field',
            message: 'not a field of the request; ignored',
          });
          removeField(copy, path);
          dropped = true;
        }
      } else if (issue.path.join('.') === 'audio.language' && issue.code === 'invalid_value') {
        warnings.push({
          path: 'audio.language',
          kind: 'unknown-value',
          message: `${JSON.stringify(groupOf(copy, 'audio')?.language)} is not a listed language; recognised as if unset`,
        });
        removeField(copy, issue.path);
        dropped = true;
      }
    }
    if (!dropped) return refusal(toAsrIssues(parsed.error.issues), warnings);
    parsed = asrRequestSchema.safeParse(copy);
  }
  const request = parsed.data;
  for (const issue of unsupportedOnEndpoint(request, endpoint)) {
    warnings.push({
      path: issue.path,
      kind: 'ignored-on-endpoint',
      message: `${issue.message}; ignored`,
    });
    removeField(request as unknown as Group, issue.path.split('.'));
  }
  const limit = hotwordLimitIssue(request, endpoint);
  if (limit !== undefined) return refusal([limit], warnings);
  return { ok: true, request, warnings };
}
