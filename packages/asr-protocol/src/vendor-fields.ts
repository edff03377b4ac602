// Request fields this package does not know yet, sent on purpose. The request schema stays strict
// (a misspelt option is refused); these go out as given, next to the validated request.
import type { AsrIssue } from './errors.ts';
import type { JsonObject } from './frame-codec.ts';
import {
  type AsrRequest,
  asrAudioSchema,
  asrRequestOptionsSchema,
  asrUserSchema,
} from './request-schema.ts';

/**
 * Fields of the full client request that the request schema does not know (yet), by group. The
 * fields of `user`, `audio` and `request` join that group of the validated request; any other key
 * (`app`, say) adds a group of its own. A field the schema knows is refused: set it in `request`,
 * where it is checked. Values are JSON (no `undefined`, no non-finite numbers).
 *
 * @example
 * const vendorFields: AsrVendorFields = {
 *   request: { enable_speaker_info: true },
 *   app: { cluster: 'volcengine_streaming_common' },
 * };
 */
export interface AsrVendorFields {
  readonly [group: string]: JsonObject;
}

const KNOWN_FIELDS: Record<string, ReadonlySet<string>> = {
  user: new Set(Object.keys(asrUserSchema.shape)),
  audio: new Set(Object.keys(asrAudioSchema.shape)),
  request: new Set(Object.keys(asrRequestOptionsSchema.shape)),
};

function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Where and why `value` cannot be sent as JSON as it is (`at` is the path inside `value`, '' for
 * the value itself), or undefined when it can.
 */
function jsonProblem(value: unknown): { at: string; message: string } | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? undefined
      : { at: '', message: `must be a finite number (got ${value})` };
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [`[${index}]`, item] as const)
    : isPlainJsonObject(value)
      ? Object.entries(value).map(([key, item]) => [`.${key}`, item] as const)
      : undefined;
  if (entries === undefined) {
    return { at: '', message: `must be a JSON value (got ${typeof value})` };
  }
  for (const [step, item] of entries) {
    const problem = jsonProblem(item);
    if (problem !== undefined) return { at: `${step}${problem.at}`, message: problem.message };
  }
  return undefined;
}

/**
 * Every problem of a `vendorFields` option, with paths from `vendorFields`: not an object of
 * objects, a value that is not JSON, or a field the request schema knows.
 */
export function vendorFieldIssues(value: unknown): AsrIssue[] {
  if (!isPlainJsonObject(value)) {
    return [{ path: 'vendorFields', message: 'must be an object of groups, each an object' }];
  }
  const issues: AsrIssue[] = [];
  for (const [group, fields] of Object.entries(value)) {
    const groupPath = `vendorFields.${group}`;
    if (!isPlainJsonObject(fields)) {
      issues.push({ path: groupPath, message: 'must be an object of fields' });
      continue;
    }
    for (const [field, fieldValue] of Object.entries(fields)) {
      const path = `${groupPath}.${field}`;
      if (KNOWN_FIELDS[group]?.has(field)) {
        issues.push({
          path,
          message: `the request schema knows ${group}.${field}: set it in the request option, where it is checked`,
        });
        continue;
      }
      const problem = jsonProblem(fieldValue);
      if (problem !== undefined)
        issues.push({ path: `${path}${problem.at}`, message: problem.message });
    }
  }
  return issues;
}

/**
 * The request payload to send: the validated request with the vendor fields added (see
 * {@link AsrVendorFields}). Neither argument is changed.
 */
export function withVendorFields(request: AsrRequest, vendorFields: AsrVendorFields): JsonObject {
  const payload = { ...request } as unknown as Record<string, JsonObject>;
  for (const [group, fields] of Object.entries(vendorFields)) {
    const known = payload[group];
    Object.defineProperty(payload, group, {
      value: known === undefined ? { ...fields } : { ...known, ...fields },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return payload;
}
