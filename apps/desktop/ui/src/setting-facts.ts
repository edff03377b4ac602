// What the backend says about its settings: each key's name and choices and each ASR mode's name
// and needs, in both languages (GET /api/settings/definitions). The UI keeps no list of its own:
// labels, choices and the microphone check all come from here.
import { call } from './api.ts';
import { lang } from './i18n.ts';
import type { AsrModeFacts, BothLanguages, SettingFacts } from './types.ts';

let facts: SettingFacts | undefined;
let loading: Promise<SettingFacts> | undefined;

/** Reads the facts once (again after a failure); later calls share the answer. */
export function loadSettingFacts(): Promise<SettingFacts> {
  loading ??= call('GET /api/settings/definitions').then(
    (answer) => {
      facts = answer;
      return answer;
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Keeps the facts of an answer that carries them too (GET /api/settings). */
export function keepSettingFacts(answer: SettingFacts): void {
  facts = { groups: answer.groups, definitions: answer.definitions, asr_modes: answer.asr_modes };
  loading = Promise.resolve(facts);
}

/** A text the backend sends in both languages, in the UI's. */
export function inUiLanguage(text: BothLanguages): string {
  return text[lang()];
}

/**
 * The plain name of a setting (by its key or another name the file may give it) in the UI's
 * language, or the key before the facts are read.
 */
export function settingLabel(key: string): string {
  const definition = facts?.definitions.find(
    (item) => item.key === key || item.aliases.includes(key),
  );
  return definition ? inUiLanguage(definition.label) : key;
}

/** An ASR mode by its ASR_MODE value or one of its other names. */
export function asrModeFacts(
  mode: string,
  from: SettingFacts | undefined = facts,
): AsrModeFacts | undefined {
  return from?.asr_modes.find((item) => item.mode === mode || item.aliases.includes(mode));
}

/** The readable name of an ASR mode, or the value itself before the facts are read. */
export function modeName(mode: string): string {
  const facts = asrModeFacts(mode);
  return facts ? inUiLanguage(facts.label) : mode;
}

/** True when the mode listens to audio (so the microphone is worth checking). */
export function listensToAudio(mode: AsrModeFacts | undefined): boolean {
  return (mode?.audio.length ?? 0) > 0;
}

/** The mode that runs with nothing to set up (no audio, no key, no model): the demo class. */
export function modeNeedingNothing(from: SettingFacts): AsrModeFacts | undefined {
  return from.asr_modes.find(
    (mode) => !listensToAudio(mode) && mode.settings.length === 0 && !mode.model,
  );
}
