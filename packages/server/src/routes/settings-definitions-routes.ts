// What a settings form needs to show every key, and what each ASR mode needs: the groups with
// their titles, each key's name in plain words, what it does and its choices, in Chinese and English. They come
// from the setting definitions and the recognizer registry, so a client shows no list of its own.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { localized } from '../language.ts';
import type { RecognizerRegistry } from '../recognizers/recognizer.ts';
import {
  ASR_MODE_ALIASES,
  ASR_MODE_CHOICES,
  SETTING_DEFINITIONS,
  SETTING_GROUPS,
  type SettingChoice,
  type SettingDefinition,
} from '../settings/settings-schema.ts';

const BothLanguagesSchema = z.object({ zh: z.string(), en: z.string() });

/** One key of the settings file, as a form shows it. */
export const SettingDefinitionSchema = z.object({
  key: z.string(),
  aliases: z
    .array(z.string())
    .describe('Other names the key may have in the file (the original product’s).'),
  group: z.string().describe('The id of one of `groups`.'),
  label: BothLanguagesSchema.describe('The key’s name in plain words.'),
  description: z.string().describe('What the key does, in English.'),
  descriptions: BothLanguagesSchema.describe(
    'The description in both languages (a form shows its own).',
  ),
  default: z.string(),
  secret: z.boolean(),
  applies: z.enum(['now', 'next-class', 'restart']),
  example: z.string(),
  choices: z
    .array(
      z.object({
        value: z.string(),
        label: BothLanguagesSchema,
        help: BothLanguagesSchema.optional(),
      }),
    )
    .optional()
    .describe('For a key with a fixed set of values: each value with its name. Absent: free text.'),
});

/** A group of keys, in the order a form shows them. */
export const SettingGroupSchema = z.object({ id: z.string(), label: BothLanguagesSchema });

/** One ASR mode this build can run and what it needs. */
export const AsrModeSchema = z.object({
  mode: z.string().describe('The ASR_MODE value.'),
  label: BothLanguagesSchema,
  help: BothLanguagesSchema.optional(),
  aliases: z.array(z.string()).describe('Other ASR_MODE values meaning this mode (seed-asr).'),
  audio: z
    .array(z.enum(['microphone', 'app', 'file']))
    .describe(
      'The kinds of AUDIO_INPUT it listens to (mic / mic:NAME, app, file:PATH); empty: no audio, so no microphone check.',
    ),
  settings: z.array(z.string()).describe('The keys a student fills in for it.'),
  model: z.boolean().describe('Whether it needs a speech model on this computer.'),
});

export const SettingsDefinitionsSchema = z
  .object({
    status: z.literal('success'),
    groups: z.array(SettingGroupSchema),
    definitions: z.array(SettingDefinitionSchema),
    asr_modes: z.array(AsrModeSchema),
  })
  .meta({ description: 'How to show the settings, and what each ASR mode needs.' });

const choiceView = (choice: SettingChoice) => ({
  value: choice.value,
  label: choice.label,
  ...(choice.help ? { help: choice.help } : {}),
});

/** Every main key, as a form shows it. */
export function settingDefinitionsView(): Array<z.infer<typeof SettingDefinitionSchema>> {
  return SETTING_DEFINITIONS.map((item) => {
    const definition: SettingDefinition = item;
    return {
      key: definition.key,
      aliases: [...(definition.aliases ?? [])],
      group: definition.group,
      label: definition.label,
      description: definition.description,
      descriptions: localized(definition.descriptionZh, definition.description),
      default: definition.defaultValue,
      secret: definition.secret,
      applies: definition.applies,
      example: definition.example,
      ...(definition.choices ? { choices: definition.choices.map(choiceView) } : {}),
    };
  });
}

/** The groups of keys, in order. */
export function settingGroupsView(): Array<z.infer<typeof SettingGroupSchema>> {
  return SETTING_GROUPS.map((group) => ({ id: group.id, label: group.label }));
}

/** The ASR modes the registry has, in the order ASR_MODE offers them, with what each needs. */
export function asrModesView(registry: RecognizerRegistry): Array<z.infer<typeof AsrModeSchema>> {
  return ASR_MODE_CHOICES.flatMap((choice: SettingChoice) => {
    const definition = registry.get(choice.value);
    if (!definition) return [];
    const needs = definition.needs ?? { audio: [], settings: [], model: false };
    return [
      {
        mode: choice.value,
        ...choiceView(choice),
        aliases: Object.keys(ASR_MODE_ALIASES).filter(
          (alias) => ASR_MODE_ALIASES[alias] === choice.value,
        ),
        audio: [...needs.audio],
        settings: [...needs.settings],
        model: needs.model,
      },
    ];
  });
}

/** GET /api/settings/definitions. */
export const settingsDefinitionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { recognizers } = app.classAssistant;

  app.get(
    '/api/settings/definitions',
    {
      schema: {
        tags: ['settings'],
        summary: 'How to show the settings, and what each ASR mode needs',
        description:
          'The groups of keys with their titles, every main key with its name, its description and (for a fixed set of values) its choices, each in Chinese and English, and the ASR modes this build runs with what each needs: the kinds of audio input it listens to, the keys a student fills in, whether it needs a speech model. The same for every request; it does not read the settings file (GET /api/settings has the values).',
        response: { 200: SettingsDefinitionsSchema },
      },
    },
    async () => ({
      status: 'success' as const,
      groups: settingGroupsView(),
      definitions: settingDefinitionsView(),
      asr_modes: asrModesView(recognizers),
    }),
  );
};
