import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type Language, requestLanguage } from '../language.ts';
import { settingDefinition } from '../settings/settings-schema.ts';
import type { SettingsSaveResult } from '../settings/settings-store.ts';
import { errors } from './schemas.ts';
import {
  AsrModeSchema,
  asrModesView,
  SettingDefinitionSchema,
  SettingGroupSchema,
  settingDefinitionsView,
  settingGroupsView,
} from './settings-definitions-routes.ts';

export const SettingsViewSchema = z
  .object({
    status: z.literal('success'),
    content: z
      .string()
      .describe('The whole .env file, secret values masked (the original client edits this).'),
    path: z.string(),
    exists: z.boolean(),
    fields: z
      .record(z.string(), z.string())
      .describe('Main keys as stored in the file (absent: ""), secrets masked.'),
    extra_lines: z
      .string()
      .describe('Every other line (comments, blank lines, other keys) in file order.'),
    effective: z
      .record(z.string(), z.string())
      .describe('The values in use (file, environment, defaults), secrets masked.'),
    environment_overrides: z.array(z.string()),
    problems: z.array(z.object({ key: z.string(), source: z.string(), message: z.string() })),
    invalid_lines: z.array(z.number()),
    definitions: z.array(SettingDefinitionSchema),
    groups: z.array(SettingGroupSchema).describe('The groups of `definitions`, in form order.'),
    asr_modes: z
      .array(AsrModeSchema)
      .describe('The ASR modes this build runs, with what each needs.'),
  })
  .meta({ description: 'The settings file and its main keys.' });

export const SaveBodySchema = z
  .object({
    content: z
      .string()
      .max(256 * 1024)
      .optional()
      .describe(
        'The whole file, as the original client sends it. Masked secrets keep their stored value.',
      ),
    fields: z
      .record(z.string(), z.union([z.string().max(4096), z.number(), z.boolean()]))
      .optional()
      .describe(
        'Main keys to set; other lines keep their bytes. A masked secret keeps the stored one.',
      ),
    extra_lines: z
      .string()
      .max(256 * 1024)
      .optional()
      .describe(
        'Replaces the non-main lines (with fields); main keys stay next to the lines they followed.',
      ),
  })
  .refine(
    (body) =>
      (body.content === undefined) !==
      (body.fields === undefined && body.extra_lines === undefined),
    {
      message: 'send either {content} or {fields, extra_lines?}',
    },
  )
  .meta({
    examples: [
      { fields: { ASR_MODE: 'mock', LLM_MODEL: 'deepseek-chat', LLM_API_KEY: 'sk-your-key' } },
      { content: '# my settings\nASR_MODE=mock\nLLM_API_KEY=••••••••wxyz\n' },
    ],
  });

export const SaveResultSchema = z.object({
  status: z.literal('success'),
  message: z.string(),
  path: z.string(),
  changed: z
    .array(z.string())
    .describe(
      'The keys whose value in use changed, by the name the file gives them (an original name such as SEED_ASR_APP_KEY stays); the lists below use the same names.',
    ),
  applied_now: z.array(z.string()).describe('In effect for the next request.'),
  next_class: z.array(z.string()).describe('In effect from the next start_monitor.'),
  restart_required: z.array(z.string()).describe('In effect after restarting the backend.'),
  overridden_by_environment: z
    .array(z.string())
    .describe('Saved, but an environment variable wins until it is unset.'),
});

/**
 * What a save did, for the student, in their language: each changed key once, by its plain name
 * and the name the file gives it, under when it takes effect.
 */
function describeSave(result: SettingsSaveResult, language: Language): string {
  const zh = language === 'zh';
  if (result.changed.length === 0)
    return zh ? '设置已保存，没有改动。' : 'Settings saved; nothing changed.';
  const list = (names: string[]) =>
    names
      .map((name) => {
        const label = settingDefinition(name)?.label;
        if (!label) return name;
        return zh ? `${label.zh}（${name}）` : `${label.en} (${name})`;
      })
      .join(zh ? '、' : ', ');
  const parts = [zh ? '设置已保存。' : 'Settings saved.'];
  const add = (names: string[], chinese: string, english: string) => {
    if (names.length > 0)
      parts.push(zh ? `${chinese}：${list(names)}。` : `${english}: ${list(names)}.`);
  };
  add(result.appliedNow, '立即生效', 'In effect now');
  add(result.nextClass, '下一节课开始生效', 'In effect from the next class');
  add(result.restartRequired, '重启后端后生效', 'Restart the backend for');
  add(result.overriddenByEnvironment, '仍被环境变量覆盖', 'Environment variables still override');
  return parts.join(zh ? '' : ' ');
}

/** GET and POST /api/settings. */
export const settingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { settings } = app.classAssistant;

  app.get(
    '/api/settings',
    {
      schema: {
        tags: ['settings'],
        summary: 'Read the settings file',
        description:
          'The original `{status, content, path}` plus the main keys as fields, the extra lines, effective values and key definitions (with their names and choices in both languages, their groups, and what each ASR mode needs, as GET /api/settings/definitions). Secrets are masked as `••••••••` plus their last 4 characters: keys whose name has a secret word (KEY, TOKEN, SECRET, PASSWORD, PWD, PASS, PIN, AUTH, COOKIE, SESSION, SALT, …), values shaped like a key (`sk-…`, `ghp_…`, a webhook, a long random token), and the password of any address. A masked value posted back means "keep the stored one". 409 SETTINGS_FILE_UNUSABLE when the settings path holds a folder, a named pipe, a socket or a device (never opened) or a file that cannot be read: the message says what is there and what to do.',
        response: { 200: SettingsViewSchema, ...errors(409) },
      },
    },
    async () => {
      await settings.load();
      const view = settings.view();
      return {
        status: 'success' as const,
        content: view.content,
        path: view.path,
        exists: view.exists,
        fields: view.fields,
        extra_lines: view.extraLines,
        effective: view.effective,
        environment_overrides: view.environmentOverrides,
        problems: view.problems,
        invalid_lines: view.invalidLines,
        definitions: settingDefinitionsView(),
        groups: settingGroupsView(),
        asr_modes: asrModesView(app.classAssistant.recognizers),
      };
    },
  );

  app.post(
    '/api/settings',
    {
      schema: {
        tags: ['settings'],
        summary: 'Save the settings file',
        description:
          'Either `{content}` (the whole file, as the original client sends it) or `{fields, extra_lines?}`. Bad values of main keys are refused with 400 SETTINGS_INVALID naming the field; nothing is written then. Pointing an address that receives a stored key (LLM_BASE_URL, CLOUD_ASR_BASE_URL, STREAM_ASR_URL, DASHSCOPE_WS_URL) at another origin needs that key typed in the same request: a masked one is refused with 400 SETTINGS_SECRET_REQUIRED naming the key to re-enter (one sentence per key, by its name and the name the file gives it), and nothing is written. Messages are in Chinese, or English when Accept-Language prefers it. Lines you did not change keep their bytes. The file is written atomically (temp file, fsync, rename). The answer says which changes apply now, from the next class, or after a restart. 409 SETTINGS_FILE_UNUSABLE (nothing written) while the settings path holds something other than a regular file, as for GET.',
        body: SaveBodySchema,
        response: { 200: SaveResultSchema, ...errors(400, 409) },
      },
    },
    async (request) => {
      await settings.load();
      const body = request.body;
      const result =
        body.content !== undefined
          ? await settings.saveContent(body.content)
          : await settings.saveFields(
              Object.fromEntries(
                Object.entries(body.fields ?? {}).map(([key, value]) => [key, String(value)]),
              ),
              body.extra_lines,
            );
      // The student's name and number apply to a running class at once.
      if (result.changed.length > 0) app.classAssistant.monitor.refreshKeywords();
      return {
        status: 'success' as const,
        message: describeSave(result, requestLanguage(request)),
        path: settings.path,
        changed: result.changed,
        applied_now: result.appliedNow,
        next_class: result.nextClass,
        restart_required: result.restartRequired,
        overridden_by_environment: result.overriddenByEnvironment,
      };
    },
  );
};
