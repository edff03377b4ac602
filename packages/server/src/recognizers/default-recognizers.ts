import { cloudRecognizerDefinition } from './cloud-definition.ts';
import { dashscopeRecognizerDefinition } from './dashscope-definition.ts';
import type { LocalModelOptions } from './local-model.ts';
import { createLocalRecognizerDefinition } from './local-recognizer.ts';
import { mockRecognizerDefinition } from './mock-recognizer.ts';
import type { RecognizerDefinition } from './recognizer.ts';
import { streamRecognizerDefinition } from './stream-definition.ts';

/**
 * The recognizers of this build: local (offline, the default), stream (online streaming; the
 * original's seed-asr), dashscope (Alibaba Cloud real-time recognition), cloud
 * (OpenAI-compatible transcription) and mock (a scripted class). `options.local` sets where the
 * local mode looks for models (see {@link LocalModelOptions}).
 */
export function defaultRecognizerDefinitions(
  options: { local?: LocalModelOptions } = {},
): RecognizerDefinition[] {
  return [
    createLocalRecognizerDefinition(options.local),
    streamRecognizerDefinition,
    dashscopeRecognizerDefinition,
    cloudRecognizerDefinition,
    mockRecognizerDefinition,
  ];
}
