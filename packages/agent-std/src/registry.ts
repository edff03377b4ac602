import type { z } from 'zod';
import { type AnyToolDefinition, NAMESPACES, type Namespace } from './tool.ts';
import { askHuman } from './tools/ask-human.ts';
import { fileAppend, fileDelete, fileExists, fileList, fileRead, fileWrite } from './tools/fs.ts';
import { base64Decode, base64Encode, hashMd5, hashSha256 } from './tools/hash.ts';
import { httpDelete, httpGet, httpPost, httpPut } from './tools/http.ts';
import { jsonGet, jsonParse, jsonStringify } from './tools/json.ts';
import { mathCalc, mathRandom } from './tools/math.ts';
import { regexMatch, regexReplace } from './tools/regex.ts';
import { shellExec, shellWhich } from './tools/shell.ts';
import { textLower, textReplace, textSplit, textUpper } from './tools/text.ts';
import { timeDiff, timeFormat, timeNow, timeSleep, timeTimestamp } from './tools/time.ts';

/** All 33 tools of the standard library, by name. */
export const STD_TOOLS = Object.freeze({
  file_read: fileRead,
  file_write: fileWrite,
  file_append: fileAppend,
  file_exists: fileExists,
  file_list: fileList,
  file_delete: fileDelete,
  http_get: httpGet,
  http_post: httpPost,
  http_put: httpPut,
  http_delete: httpDelete,
  time_now: timeNow,
  time_diff: timeDiff,
  time_format: timeFormat,
  time_sleep: timeSleep,
  time_timestamp: timeTimestamp,
  json_parse: jsonParse,
  json_get: jsonGet,
  json_stringify: jsonStringify,
  text_split: textSplit,
  text_replace: textReplace,
  text_upper: textUpper,
  text_lower: textLower,
  hash_md5: hashMd5,
  hash_sha256: hashSha256,
  base64_encode: base64Encode,
  base64_decode: base64Decode,
  math_calc: mathCalc,
  math_random: mathRandom,
  regex_match: regexMatch,
  regex_replace: regexReplace,
  shell_exec: shellExec,
  shell_which: shellWhich,
  ask_human: askHuman,
});

/** The registry's type: tool name -> definition. */
export type StdTools = typeof STD_TOOLS;
/** The name of one of the 33 tools. */
export type StdToolName = keyof StdTools;
/** The names of the tools in the namespaces `NS`. */
export type ToolNameIn<NS extends Namespace> = {
  [Name in StdToolName]: StdTools[Name]['namespace'] extends NS ? Name : never;
}[StdToolName];
/** What a caller passes to tool `Name` (defaulted arguments optional). */
export type ToolInput<Name extends StdToolName> = z.input<StdTools[Name]['inputSchema']>;
/** What `execute` of tool `Name` receives (defaults applied). */
export type ToolParameters<Name extends StdToolName> = z.output<StdTools[Name]['inputSchema']>;
/** What tool `Name` returns. */
export type ToolResult<Name extends StdToolName> = z.output<StdTools[Name]['outputSchema']>;

/** Every namespace with the names of its tools, in the order the README's tool table lists them. */
export const TOOLS_BY_NAMESPACE: Readonly<Record<Namespace, readonly StdToolName[]>> =
  Object.freeze(
    Object.fromEntries(
      NAMESPACES.map((namespace) => [
        namespace,
        Object.freeze(
          (Object.keys(STD_TOOLS) as StdToolName[]).filter(
            (name) => STD_TOOLS[name].namespace === namespace,
          ),
        ),
      ]),
    ) as Record<Namespace, readonly StdToolName[]>,
  );

/** The definition of a tool by name, or `undefined` (own keys only: `toString` is no tool). */
export function getTool(name: string): AnyToolDefinition | undefined {
  return Object.hasOwn(STD_TOOLS, name) ? STD_TOOLS[name as StdToolName] : undefined;
}

/** True when `value` names one of the ten namespaces. */
export function isNamespace(value: unknown): value is Namespace {
  return typeof value === 'string' && (NAMESPACES as readonly string[]).includes(value);
}
